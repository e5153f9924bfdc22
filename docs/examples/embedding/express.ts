import { handler } from "../context-handler.ts";

const card = {
  name: "Robots",
  description: "Store tasks",
  endpointUrl: "http://localhost/api/v1/a2a",
  version: "1.0.0",
  skills: [],
};

// #region snippet
import express from "express";
import { agentCardForRequest } from "@a2a-partner/a2a-core";
import { toNodeHandler } from "@a2a-partner/a2a-core/node";

const app = express();
app.use("/api/v1/a2a", toNodeHandler(handler)); // both bindings; before any body parser
app.use(express.json()); // the rest of your API
app.get("/.well-known/agent-card.json", (req, res) => void res.json(agentCardForRequest(req, card)));
// #endregion snippet

export { app };
