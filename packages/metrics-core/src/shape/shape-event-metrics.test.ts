import { describe, expect, it } from "vitest";
import { EventMetricsResponse } from "../schemas/event-metrics-response.js";
import { type EventMetricsRow, shapeEventMetrics } from "./shape-event-metrics.js";

const WS = "0b5c3f4e-8a61-4f0a-9d3e-2b7c1e6a9f10";
const WF_A = "11111111-1111-4111-8111-111111111111";
const WF_B = "22222222-2222-4222-8222-222222222222";
const OPEN = { start: null, end: null };

describe("shapeEventMetrics", () => {
  it("gives the contract's empty object for no rows", () => {
    const body = shapeEventMetrics(WS, OPEN, []);
    expect(body).toEqual({
      workspace_uuid: WS,
      window: { start: null, end: null },
      telemetry: { total: 0, by_event_type: {}, by_day: [] },
      workflow_executions: { total: 0, by_workflow: {}, by_day: [] },
      workflow_node_executions: { total: 0, by_workflow: {}, by_day: [] },
      alerts: { total: 0, by_alert_type: {}, by_day: [] },
    });
    expect(EventMetricsResponse.parse(body)).toEqual(body);
  });

  it("echoes the window as UTC ISO strings", () => {
    const body = shapeEventMetrics(WS, { start: new Date("2026-01-01T05:30:00+05:30"), end: null }, []);
    expect(body.window).toEqual({ start: "2026-01-01T00:00:00.000Z", end: null });
  });

  it("converts driver counts (string, bigint, number) to integers and sorts by day then key", () => {
    const rows: EventMetricsRow[] = [
      { section: "telemetry", day: "2026-01-02", key: "robot.moved", name: null, count: "3" },
      { section: "telemetry", day: "2026-01-01", key: "robot.picked", name: null, count: 2n },
      { section: "telemetry", day: "2026-01-01", key: "battery.level", name: null, count: 5 },
      { section: "alerts", day: "2026-01-03", key: "obstacle_detected", name: null, count: "1" },
      { section: "workflow_executions", day: "2026-01-02", key: WF_B, name: "pick", count: "4" },
      { section: "workflow_executions", day: "2026-01-02", key: WF_A, name: "restock", count: "1" },
      { section: "workflow_executions", day: "2026-01-01", key: WF_B, name: "pick", count: "2" },
      { section: "workflow_node_executions", day: "2026-01-01", key: WF_A, name: "restock", count: "7" },
    ];
    const body = shapeEventMetrics(WS, OPEN, rows);
    expect(body.telemetry).toEqual({
      total: 10,
      by_event_type: { "robot.moved": 3, "robot.picked": 2, "battery.level": 5 },
      by_day: [
        { day: "2026-01-01", event_type: "battery.level", count: 5 },
        { day: "2026-01-01", event_type: "robot.picked", count: 2 },
        { day: "2026-01-02", event_type: "robot.moved", count: 3 },
      ],
    });
    expect(body.alerts).toEqual({
      total: 1,
      by_alert_type: { obstacle_detected: 1 },
      by_day: [{ day: "2026-01-03", alert_type: "obstacle_detected", count: 1 }],
    });
    expect(body.workflow_executions).toEqual({
      total: 7,
      by_workflow: { [WF_A]: { name: "restock", count: 1 }, [WF_B]: { name: "pick", count: 6 } },
      by_day: [
        { day: "2026-01-01", workflow_uuid: WF_B, workflow_name: "pick", count: 2 },
        { day: "2026-01-02", workflow_uuid: WF_A, workflow_name: "restock", count: 1 },
        { day: "2026-01-02", workflow_uuid: WF_B, workflow_name: "pick", count: 4 },
      ],
    });
    expect(body.workflow_node_executions.total).toBe(7);
    expect(EventMetricsResponse.parse(body)).toEqual(body);
  });

  it("sorts keys by code unit, not locale (upper case before lower case)", () => {
    const body = shapeEventMetrics(WS, OPEN, [
      { section: "alerts", day: "2026-01-01", key: "b", name: null, count: 1 },
      { section: "alerts", day: "2026-01-01", key: "B", name: null, count: 1 },
      { section: "alerts", day: "2026-01-01", key: "a", name: null, count: 1 },
    ]);
    expect(body.alerts.by_day.map((d) => d.alert_type)).toEqual(["B", "a", "b"]);
  });

  it("keeps by_day sparse and adds up split rows for one day and key", () => {
    const body = shapeEventMetrics(WS, OPEN, [
      { section: "telemetry", day: "2026-01-01", key: "x", name: null, count: "0" },
      { section: "telemetry", day: "2026-01-02", key: "x", name: null, count: "2" },
      { section: "telemetry", day: "2026-01-02", key: "x", name: null, count: "3" },
    ]);
    expect(body.telemetry.by_day).toEqual([{ day: "2026-01-02", event_type: "x", count: 5 }]);
    expect(body.telemetry.by_event_type).toEqual({ x: 5 });
  });

  it("keeps keys such as __proto__ and constructor as ordinary counts", () => {
    const body = shapeEventMetrics(WS, OPEN, [
      { section: "telemetry", day: "2026-01-01", key: "__proto__", name: null, count: "2" },
      { section: "telemetry", day: "2026-01-01", key: "constructor", name: null, count: "1" },
    ]);
    expect(Object.keys(body.telemetry.by_event_type).sort()).toEqual(["__proto__", "constructor"]);
    expect(JSON.parse(JSON.stringify(body)).telemetry.by_event_type).toEqual(
      JSON.parse('{"__proto__": 2, "constructor": 1}'),
    );
  });

  it("fails loudly on rows that do not match the statement's shape", () => {
    const bad: unknown[] = [
      { section: "telemetry", day: "2026-01-01", key: "x", name: null, count: "-1" },
      { section: "telemetry", day: "2026-01-01", key: "x", name: null, count: "1.5" },
      { section: "telemetry", day: "2026-01-01", key: "x", name: null, count: "99999999999999999999" },
      { section: "telemetry", day: "2026-01-01", key: "x", name: null, count: null },
      { section: "robots", day: "2026-01-01", key: "x", name: null, count: "1" },
      { section: "telemetry", day: new Date(), key: "x", name: null, count: "1" },
      { section: "telemetry", day: "2026-01-01", key: 7, name: null, count: "1" },
      null,
    ];
    for (const row of bad) {
      expect(() => shapeEventMetrics(WS, OPEN, [row as EventMetricsRow])).toThrow(TypeError);
    }
  });
});
