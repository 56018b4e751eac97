import { afterAll, describe, expect, it } from "vitest";
import { createAwsClients } from "../../lib/adapters/aws-clients.js";
import { CallerSource } from "../../lib/core/record.js";
import {
  createOperatorPorts,
  type OperatorPorts,
  type OperatorResource,
} from "../../lib/runtime/create-operator-ports.js";

const clients = createAwsClients();
afterAll(() => clients.destroy());

// A CLI command resolves only the resources its ports ask for (`submit` needs no table), so
// each port must ask for its own and no other, and only when it is built.
describe("createOperatorPorts", () => {
  it.each<[keyof OperatorPorts, OperatorResource[]]>([
    ["ingressQueue", ["ingressQueueUrl", "internalQueueUrl"]],
    ["deadLetterQueue", ["deadLetterQueueUrl"]],
    ["store", ["tableName"]],
    ["targetState", ["tableName"]],
    ["callerIdentity", []],
  ])("builds %s asking only for %j, and only when it is asked for", (port, needed) => {
    const asked: OperatorResource[] = [];
    const ports = createOperatorPorts({
      clients,
      resource: (name) => {
        asked.push(name);
        return `${name}-value`;
      },
      callerSource: CallerSource.OPERATOR,
    });
    expect(asked).toEqual([]);
    ports[port]();
    expect(asked).toEqual(needed);
  });

  it("labels the audit caller with the source it is given", () => {
    const ports = createOperatorPorts({
      clients,
      resource: (name) => name,
      callerSource: CallerSource.FUNCTION_ROLE,
    });
    expect(ports.callerIdentity().source).toBe(CallerSource.FUNCTION_ROLE);
  });
});
