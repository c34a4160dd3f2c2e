/**
 * The filter AST, in two stages: the syntax tree the parser builds (paths and literals as
 * written), and the checked tree (paths resolved against a resource schema, literals typed).
 * Every node carries UTF-16 offsets `start`..`end` (end exclusive) into the input.
 */
import type { EnumTable, FieldType } from '../api/schema/index.ts';

/** A filter dialect: `server` is what the cluster accepts; `extended` is full AIP-160. */
export type Dialect = 'server' | 'extended';

/** A span of the input. */
export interface Span {
  readonly start: number;
  readonly end: number;
}

/** A comparison operator; `:` is AIP-160 "has". */
export type Comparator = '=' | '!=' | '<' | '<=' | '>' | '>=' | ':';

/** A comparator other than `:`. */
export type CompareOp = Exclude<Comparator, ':'>;

/** Comparators in a stable order (for generators and docs). */
export const COMPARATORS: readonly Comparator[] = ['=', '!=', '<', '<=', '>', '>=', ':'];

// ---------------------------------------------------------------------------------- syntax

/** One segment of a dotted field path as written. */
export interface PathSegment extends Span {
  readonly text: string;
}

/** A field path as written (`authentication_info.user_principal`). */
export interface SyntaxPath extends Span {
  readonly segments: readonly PathSegment[];
}

/** A literal as written: unquoted text, or a quoted string decoded to bytes. */
export interface SyntaxLiteral extends Span {
  readonly quoted: boolean;
  /** the text between the quotes, or the unquoted text */
  readonly raw: string;
  /** the decoded value: for quoted strings the escapes applied (UTF-8 bytes), else raw's UTF-8 */
  readonly bytes: Uint8Array;
  /** bytes as a string when they are valid UTF-8 */
  readonly text: string | undefined;
  /** an unescaped `*` is the first character */
  readonly starAtStart: boolean;
  /** an unescaped `*` is the last character */
  readonly starAtEnd: boolean;
}

/** `field op value`. */
export interface SyntaxRestriction extends Span {
  readonly kind: 'restriction';
  readonly path: SyntaxPath;
  readonly op: Comparator;
  readonly opSpan: Span;
  readonly value: SyntaxLiteral;
}

/** n-ary AND; `implicit` for AIP-160 juxtaposition (`a = 1 b = 2`). */
export interface SyntaxAnd extends Span {
  readonly kind: 'and';
  readonly implicit: boolean;
  readonly children: readonly SyntaxNode[];
}

/** n-ary OR. */
export interface SyntaxOr extends Span {
  readonly kind: 'or';
  readonly children: readonly SyntaxNode[];
}

/** NOT or `-`. */
export interface SyntaxNot extends Span {
  readonly kind: 'not';
  readonly child: SyntaxNode;
}

/** Any syntax node. */
export type SyntaxNode = SyntaxRestriction | SyntaxAnd | SyntaxOr | SyntaxNot;

// ---------------------------------------------------------------------------------- checked

/** One step of a resolved path, from a row (or list element, or map value) inward. */
export type PathStep =
  /** read a field of a message (`wire` is the camelCase key of decoded rows) */
  | {
      readonly kind: 'field';
      readonly wire: string;
      readonly snake: string;
      readonly type: FieldType;
      readonly optional: boolean;
    }
  /** any element of the list read by the previous step */
  | { readonly kind: 'each'; readonly type: FieldType }
  /** the value at one key of the map read by the previous step */
  | { readonly kind: 'key'; readonly key: string; readonly type: FieldType };

/** A field path resolved against a schema. */
export interface ResolvedPath extends Span {
  /** canonical snake_case text (`authentication_info.user_principal`, `api_versions.3`) */
  readonly text: string;
  readonly steps: readonly PathStep[];
  /** type of the value the path ends on */
  readonly type: FieldType;
  /** the path is plain field access through messages only (no list, no map key) */
  readonly simple: boolean;
  /** the last field may be absent (optional presence or one-of), not merely default */
  readonly optional: boolean;
}

/** How a string literal matches under `=`, `!=` and `:` in the extended dialect. */
export type Wildcard = 'none' | 'prefix' | 'suffix' | 'contains' | 'any';

/** A typed literal. */
export type Literal =
  | {
      readonly kind: 'string';
      /** the bytes without wildcard stars */
      readonly bytes: Uint8Array;
      /** the bytes as a string, undefined when they are not valid UTF-8 (then nothing is equal) */
      readonly text: string | undefined;
      readonly wildcard: Wildcard;
    }
  | { readonly kind: 'int'; readonly value: bigint }
  | { readonly kind: 'bool'; readonly value: boolean }
  | {
      readonly kind: 'enum';
      /** canonical name for a known value, else the text as written */
      readonly name: string;
      /** numeric value, -1 when unknown */
      readonly number: number;
      readonly table: EnumTable;
    }
  | { readonly kind: 'duration'; readonly nanos: bigint }
  | { readonly kind: 'timestamp'; readonly nanos: bigint };

/** What a checked restriction tests. */
export type Test =
  /** compare the value (`:` on a scalar means `=`) */
  | { readonly kind: 'compare'; readonly op: CompareOp; readonly value: Literal }
  /** `path:*` on a scalar (not the default, or set when optional) or a message (set) */
  | { readonly kind: 'present' }
  /** `path:*` on a list or map: not empty */
  | { readonly kind: 'nonEmpty' }
  /** `list:value`: some element equals the value */
  | { readonly kind: 'contains'; readonly value: Literal }
  /** `map:key`: the map has the key */
  | { readonly kind: 'hasKey'; readonly key: string; readonly keyIsInt: boolean };

/** A checked comparison. */
export interface CheckedRestriction extends Span {
  readonly kind: 'restriction';
  readonly path: ResolvedPath;
  /** the operator as written (kept for printing) */
  readonly op: Comparator;
  readonly test: Test;
}

/** Checked n-ary AND. */
export interface CheckedAnd extends Span {
  readonly kind: 'and';
  readonly implicit: boolean;
  readonly children: readonly CheckedNode[];
}

/** Checked n-ary OR. */
export interface CheckedOr extends Span {
  readonly kind: 'or';
  readonly children: readonly CheckedNode[];
}

/** Checked negation. */
export interface CheckedNot extends Span {
  readonly kind: 'not';
  readonly child: CheckedNode;
}

/** Any checked node. */
export type CheckedNode = CheckedRestriction | CheckedAnd | CheckedOr | CheckedNot;
