/** True when A and B are the same type (readonly and optional modifiers included), else false. */
export type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;

/** Compiles only when its type argument is `true`: a doc's listing of a type checked against the code's. */
export function sameType<_IsEqual extends true>(): void {}
