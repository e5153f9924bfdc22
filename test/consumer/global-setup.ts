import type { TestProject } from "vitest/node";
import { prepareConsumerApp } from "./consumer-app.ts";

declare module "vitest" {
  export interface ProvidedContext {
    consumerApp: string;
  }
}

/** Packs and installs the consumer app once for every consumer test file. */
export default async function setup(project: TestProject): Promise<void> {
  const started = performance.now();
  const app = await prepareConsumerApp();
  const took = ((performance.now() - started) / 1000).toFixed(1);
  console.log(
    `consumer app ${app.installed ? `installed (npm ${(app.installMs / 1000).toFixed(1)} s)` : "reused"} in ${took} s: ${app.dir}`,
  );
  project.provide("consumerApp", app.dir);
}
