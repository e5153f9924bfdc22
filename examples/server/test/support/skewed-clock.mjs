// Preloaded into a server process (NODE_OPTIONS=--import …) to run its clock TEST_CLOCK_OFFSET_MS ahead
// (or behind): the process's Date sees the skew, the database's clock does not. Test-only.
const offset = Number(process.env.TEST_CLOCK_OFFSET_MS ?? 0);
const RealDate = globalThis.Date;
class SkewedDate extends RealDate {
  constructor(...args) {
    if (args.length === 0) super(RealDate.now() + offset);
    else super(...args);
  }
  static now() {
    return RealDate.now() + offset;
  }
}
globalThis.Date = SkewedDate;
