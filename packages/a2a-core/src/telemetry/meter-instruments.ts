import type { Meter, MeterProvider } from "@opentelemetry/api";
import type { OtelApi } from "./otel-api.js";

/**
 * A library's instruments on the application's current MeterProvider: made on first use, and made again
 * only when the application registers another provider, so one registered after the library started
 * still gets every measurement.
 */
export class MeterInstruments<T> {
  private provider: MeterProvider | undefined;
  private instruments: T | undefined;

  constructor(
    private readonly api: OtelApi,
    /** The instrumentation scope the meter is named for (the package name). */
    private readonly scope: string,
    private readonly make: (meter: Meter) => T,
  ) {}

  /** The instruments for the current provider: one provider lookup and a comparison (fit for a hot path). */
  get(): T {
    const provider = this.api.metrics.getMeterProvider();
    if (provider !== this.provider || this.instruments === undefined) {
      this.provider = provider;
      this.instruments = this.make(provider.getMeter(this.scope));
    }
    return this.instruments;
  }
}
