import { describe, expect, it } from "vitest";
import { resultWriteAfterSendOf } from "./result-write-fault.js";

/** An UpdateItem input as the low-level client's middleware sees it: values marshalled. */
const update = (status: string, newGeneration: string) => ({
  TableName: "events",
  Key: { eventId: { S: "e1" } },
  ExpressionAttributeValues: {
    ":status": { S: status },
    ":newGeneration": { N: newGeneration },
  },
});

describe("the aimed result-write fault", () => {
  it.each([
    ["the first retry's result write", "UpdateItemCommand", update("retry_scheduled", "1"), "e1"],
    ["a later retry's", "UpdateItemCommand", update("retry_scheduled", "2"), undefined],
    ["a delivery's", "UpdateItemCommand", update("delivered", "0"), undefined],
    ["a rejection's, after its copy", "UpdateItemCommand", update("rejected", "0"), "e1"],
    ["a dead-lettering's, after its copy", "UpdateItemCommand", update("dead_lettered", "3"), "e1"],
    ["a claim (PutItem)", "PutItemCommand", update("retry_scheduled", "1"), undefined],
    ["no input", "UpdateItemCommand", undefined, undefined],
  ])("recognises %s", (_name, command, input, eventId) => {
    expect(resultWriteAfterSendOf(command, input)).toBe(eventId);
  });
});
