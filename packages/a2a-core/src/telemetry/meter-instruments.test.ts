import type { Meter, MeterProvider } from "@opentelemetry/api";
import { describe, expect, it } from "vitest";
import { MeterInstruments } from "./meter-instruments.js";
import type { OtelApi } from "./otel-api.js";

/** An API whose global MeterProvider the test swaps; each provider hands out one meter per scope asked. */
function fakeApi() {
  const scopes: string[] = [];
  const provider = (): MeterProvider => ({
    getMeter: (scope: string) => {
      scopes.push(scope);
      return {} as Meter;
    },
  });
  let current = provider();
  const api = { metrics: { getMeterProvider: () => current } } as unknown as OtelApi;
  return { api, scopes, register: () => (current = provider()) };
}

describe("MeterInstruments", () => {
  it("makes the instruments once per MeterProvider, on first use, and again when another is registered", () => {
    const { api, scopes, register } = fakeApi();
    let made = 0;
    const instruments = new MeterInstruments(api, "@a2a-partner/test", (meter) => ({ meter, n: ++made }));
    expect(made).toBe(0);
    const first = instruments.get();
    expect(instruments.get()).toBe(first);
    expect(made).toBe(1);

    register();
    const second = instruments.get();
    expect(second).not.toBe(first);
    expect(second.n).toBe(2);
    expect(instruments.get()).toBe(second);
    expect(scopes).toEqual(["@a2a-partner/test", "@a2a-partner/test"]);
  });
});
