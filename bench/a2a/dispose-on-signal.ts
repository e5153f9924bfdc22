/**
 * The bench's stores (a PostgreSQL database per target, data directories) are dropped by each target's
 * `dispose`, which a bench stopped by Ctrl-C or SIGTERM (a `timeout` around it) never reaches: the
 * databases stayed behind. Targets registered here are disposed on either signal before the process exits.
 */

interface Disposable {
  dispose(): Promise<void>;
}

const undisposed = new Set<Disposable>();
let listening = false;

/** `target`, its `dispose` also run if the bench is stopped by a signal first. */
export function disposedOnSignal<T extends Disposable>(target: T): T {
  listen();
  const dispose = target.dispose.bind(target);
  undisposed.add(target);
  target.dispose = () => {
    undisposed.delete(target);
    return dispose();
  };
  return target;
}

function listen(): void {
  if (listening) return;
  listening = true;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.once(signal, () => {
      process.stderr.write(`\n${signal}: dropping the bench's stores before exiting …\n`);
      const pending = [...undisposed].map((target) => target.dispose());
      void Promise.allSettled(pending).finally(() => process.exit(signal === "SIGINT" ? 130 : 143));
    });
  }
}
