import type { RequestHandler } from "express";

/** On every answer: the A2A endpoint's adapter writes them itself, Express's routes through the middleware. */
export const SECURITY_HEADERS: ReadonlyArray<[string, string]> = [
  ["x-content-type-options", "nosniff"],
  ["x-frame-options", "DENY"],
  ["referrer-policy", "no-referrer"],
  ["content-security-policy", "default-src 'none'; frame-ancestors 'none'"],
];

export const securityHeaders: RequestHandler = (_req, res, next) => {
  for (const [name, value] of SECURITY_HEADERS) res.setHeader(name, value);
  next();
};
