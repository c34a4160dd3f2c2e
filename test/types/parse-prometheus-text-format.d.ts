/** Types of parse-prometheus-text-format (the package ships none): the prom2json shape, values as text. */
declare module 'parse-prometheus-text-format' {
  /** One sample (or one histogram / summary series) of a family. */
  export interface PromSample {
    readonly value?: string;
    readonly labels?: Readonly<Record<string, string>>;
    readonly buckets?: Readonly<Record<string, string>>;
    readonly quantiles?: Readonly<Record<string, string>>;
    readonly count?: string;
    readonly sum?: string;
  }
  /** One metric family. */
  export interface PromFamily {
    readonly name: string;
    readonly help: string;
    readonly type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
    readonly metrics: readonly PromSample[];
  }
  /** Parses the Prometheus text format; throws on malformed input. */
  export default function parsePrometheusTextFormat(text: string): PromFamily[];
}
