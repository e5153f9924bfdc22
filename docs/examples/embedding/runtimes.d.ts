// The part of Bun's and Deno's globals the snippets use, so they type-check on Node. The snippets run on
// the real runtimes in test/consumer (runtimes.consumer-test.ts); here the test fakes `serve`.
declare const Bun: {
  serve(options: {
    port: number;
    idleTimeout?: number;
    fetch(request: Request): Response | Promise<Response>;
  }): unknown;
};
declare const Deno: {
  serve(options: { port: number }, handler: (request: Request) => Response | Promise<Response>): unknown;
};
