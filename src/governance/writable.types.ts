/**
 * A record type with its fields assignable: the estate and the assessments build their readonly
 * rows a field at a time (an optional field is set only when present) instead of spreading them.
 */
export type Writable<T> = { -readonly [K in keyof T]: T[K] };
