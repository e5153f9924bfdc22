import { parseArgs } from "node:util";

/**
 * A bench script's flags: each `--name value` with its default (all strings, as they are typed), and any
 * `--switch` given. Unknown flags are refused, as parseArgs refuses them.
 */
export function benchFlags<const D extends Record<string, string>>(
  defaults: D,
  switches: readonly string[] = [],
): { [K in keyof D]: string } & { switches: ReadonlySet<string> } {
  const options: Record<string, { type: "string" | "boolean"; default?: string | boolean }> = {};
  for (const [name, value] of Object.entries(defaults)) options[name] = { type: "string", default: value };
  for (const name of switches) options[name] = { type: "boolean", default: false };
  const { values } = parseArgs({ options });
  const on = new Set(switches.filter((name) => values[name] === true));
  return { ...(values as { [K in keyof D]: string }), switches: on };
}
