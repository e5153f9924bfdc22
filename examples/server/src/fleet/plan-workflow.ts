/** A workflow the robots run for one task: a name (the workflow the metrics group by) and its nodes. */
export interface WorkflowPlan {
  workflowName: string;
  /** A short summary of the task for progress messages, e.g. "aisle 5". */
  target: string | undefined;
  /** Shared by every task of this workflow (frozen): a running task keeps no copy of its own. */
  nodes: readonly WorkflowNodePlan[];
}

export interface WorkflowNodePlan {
  readonly name: string;
  /** What the robot does, for the progress line. */
  readonly action: string;
  /** Telemetry the step produces. */
  readonly telemetry: readonly string[];
}

interface Recipe {
  workflowName: string;
  keywords: RegExp;
  nodes: readonly WorkflowNodePlan[];
}

const step = (name: string, action: string, ...telemetry: string[]): WorkflowNodePlan =>
  Object.freeze({ name, action, telemetry: Object.freeze(telemetry) });

// One line a recipe and one a step, so the table reads as a table.
const recipe = (workflowName: string, keywords: RegExp, nodes: readonly WorkflowNodePlan[]): Recipe => ({
  workflowName,
  keywords,
  nodes,
});

// The store operations the simulated fleet knows; the first matching recipe wins.
const RECIPES: Recipe[] = [
  recipe("restock-shelf", /\b(restock|refill|replenish|stock)\b/i, [
    step("locate-stock", "locating stock in the back room", "robot.moved"),
    step("pick-items", "picking items", "robot.picked"),
    step("navigate-to-shelf", "driving to the shelf", "robot.moved"),
    step("place-items", "placing items on the shelf", "robot.placed"),
    step("verify-shelf", "scanning the shelf", "shelf.scanned"),
  ]),
  recipe("clean-spill", /\b(clean|spill|mop|wipe)\b/i, [
    step("navigate-to-spill", "driving to the spill", "robot.moved"),
    step("cordon-area", "cordoning the area", "area.cordoned"),
    step("clean-floor", "cleaning the floor", "floor.cleaned"),
    step("verify-floor", "checking the floor is dry", "floor.scanned"),
  ]),
  recipe("inventory-count", /\b(count|inventory|audit|scan)\b/i, [
    step("navigate-to-aisle", "driving to the aisle", "robot.moved"),
    step("scan-shelves", "scanning shelves", "shelf.scanned"),
    step("reconcile-counts", "reconciling counts", "inventory.reconciled"),
  ]),
  recipe("fetch-item", /\b(fetch|bring|deliver|pick up|retrieve)\b/i, [
    step("locate-item", "locating the item", "robot.moved"),
    step("pick-item", "picking the item", "robot.picked"),
    step("deliver-item", "delivering the item", "robot.moved"),
  ]),
];

const GENERAL = recipe("general-task", /.*/, [
  step("plan-route", "planning the route", "robot.moved"),
  step("perform-task", "carrying out the task", "robot.worked"),
  step("report", "reporting back", "robot.reported"),
]);

/** Turns a plain-language task into the workflow the robots run. Pure and deterministic. */
export function planWorkflow(text: string): WorkflowPlan {
  const matched = RECIPES.find((r) => r.keywords.test(text)) ?? GENERAL;
  const target = /\b(aisle|shelf|bay|dock|section|zone)\s+([\w-]+)/i.exec(text);
  return {
    workflowName: matched.workflowName,
    target: target ? `${target[1]?.toLowerCase()} ${target[2]}` : undefined,
    nodes: matched.nodes,
  };
}
