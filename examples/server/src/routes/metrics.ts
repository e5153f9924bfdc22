import type { Database } from "@a2a-partner/postgres-store";
import { Router } from "express";
import type { Logger } from "../logger.ts";

/** GET /api/v1/metrics/events/:workspace — filled in by the metrics work (issue #4). */
export function metricsRouter(_options: { db: Database; logger: Logger }): Router {
  return Router();
}
