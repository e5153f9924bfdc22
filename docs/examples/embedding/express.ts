import { handler } from "../context.ts";

// #region snippet
import express from "express";
import { toNodeHandler } from "@a2a-partner/a2a-core/node";

const app = express();
const a2a = toNodeHandler(handler);
app.all("/api/v1/a2a", a2a); // JSON-RPC; before any body parser
app.use("/api/v1/a2a", (req, res) => void a2a(req, res)); // HTTP+JSON: /api/v1/a2a/message:stream, /tasks/…
app.use(express.json()); // the rest of your API

// #endregion snippet

export { app };
