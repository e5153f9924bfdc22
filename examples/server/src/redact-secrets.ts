/**
 * A URL or connection string as it may appear in any output: without its password, wherever the value
 * puts it. A password may hold `/`, `@`, `:` unencoded (the value is then no valid URL, and a URL parser
 * cannot say where it ends), so everything from the first `:` after the user to the LAST `@` goes; a
 * `password=` parameter (query string or key=value form) goes too. Over-redacting an odd value is fine;
 * printing a secret is not.
 */
export function redactSecrets(value: string): string {
  const scheme = /^[a-z][a-z0-9+.-]*:\/\//i.exec(value)?.[0] ?? "";
  let redacted = value;
  const at = value.lastIndexOf("@");
  const colon = value.indexOf(":", scheme.length);
  if (at > scheme.length && colon !== -1 && colon < at) {
    redacted = `${value.slice(0, colon)}:***${value.slice(at)}`;
  }
  return redacted.replace(/(password=)[^&\s]*/gi, "$1***");
}
