import type { WorkflowShare } from "@a2a-partner/metrics-generator";
import { planWorkflow } from "./plan-workflow.ts";

/** The fleet's own workflows (plan-workflow.ts recipes) for `generate`, so generated and real records share names. */
export function workflowMix(): WorkflowShare[] {
  return (
    [
      ["Restock aisle 5", 35],
      ["Count inventory in aisle 7", 25],
      ["Fetch a basket to checkout", 20],
      ["Clean the spill in aisle 3", 10],
      ["Greet customers at the door", 10],
    ] as const
  ).map(([text, share]) => {
    const plan = planWorkflow(text);
    return { name: plan.workflowName, share, nodes: plan.nodes.map((n) => n.name) };
  });
}
