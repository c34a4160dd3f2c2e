/** The typed error an answer builder returns instead of an answer. */
import type { ConnectCode } from '../api/client/connect-codes.ts';

/** A Connect error the simulated server answers with (code and message). */
export class SimError {
  /** the Connect code */
  readonly code: ConnectCode;
  /** the developer-facing message */
  readonly message: string;

  constructor(code: ConnectCode, message: string) {
    this.code = code;
    this.message = message;
  }
}

/** True when an answer builder returned an error. */
export function isSimError(v: unknown): v is SimError {
  return v instanceof SimError;
}
