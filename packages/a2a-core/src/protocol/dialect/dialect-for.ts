import { DIALECT_V03 } from "../v0_3/dialect.js";
import type { Dialect } from "./dialect.js";
import type { ProtocolVersion } from "./protocol-version.js";
import { DIALECT_V1 } from "./v1-dialect.js";

export function dialectFor(version: ProtocolVersion): Dialect {
  return version === "1.0" ? DIALECT_V1 : DIALECT_V03;
}
