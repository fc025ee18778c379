// The official JS A2A SDK client against the arena's A2A server at BASE URL (argv[2]): starts a
// split_100 match against the built-in `concession` opponent, then plays it to the end in the seat's
// context (no match_id or token in the calls), and provokes a refusal. Prints one JSON object: what
// the client saw. Usage: node a2a_match.mjs http://127.0.0.1:PORT
import { randomUUID } from "node:crypto";
import { Role } from "@a2a-js/sdk";
import { ClientFactory } from "@a2a-js/sdk/client";

const client = await new ClientFactory().createFromUrl(process.argv[2]);

// One operation sent as a data part in `contextId` ("" lets the server pick one): the reply Message
// with the answer it holds (the application/json text part, else the data part).
async function call(operation, args, contextId = "") {
  const message = {
    messageId: randomUUID(),
    contextId,
    taskId: "",
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "data", value: { operation, arguments: args } }, metadata: undefined, filename: "", mediaType: "" }],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  const reply = await client.sendMessage({ tenant: "", message, configuration: undefined, metadata: undefined });
  const parts = reply.parts ?? reply.status?.message?.parts ?? [];
  const json = parts.find((part) => part.content?.$case === "text" && part.mediaType === "application/json");
  const data = parts.find((part) => part.content?.$case === "data");
  const answer = json ? JSON.parse(json.content.value) : data?.content.value;
  return { reply, answer };
}

const { reply, answer: started } = await call("start_game", { game_id: "split_100", opponents: ["concession"] });
// The reply comes in the seat's own context: go on in it, as any A2A client would.
const context = reply.contextId;
const refusal = (await call("perform_action", { action_type: "propose", payload: { mine: 500 } }, context)).answer;
let state = (await call("get_turn_state", { wait_seconds: 5 }, context)).answer;
let moves = 0;
while (state.status !== "finished" && moves < 50) {
  if (state.error) throw new Error(JSON.stringify(state));
  if (state.your_turn) {
    const names = state.allowed_actions.map((action) => action.name);
    const move = names.includes("accept") ? ["accept", {}] : ["propose", { mine: 50 }];
    const outcome = (await call("perform_action", { action_type: move[0], payload: move[1] }, context)).answer;
    if (outcome.error) throw new Error(JSON.stringify(outcome));
    moves += 1;
  }
  state = (await call("get_turn_state", { since: state.cursor, wait_seconds: 5 }, context)).answer;
}
const result = (await call("get_result", { match_id: started.match_id }, context)).answer;
console.log(
  JSON.stringify({ reply_context_id: reply.contextId, context_id: started.context_id, started, moves, status: state.status, result, refusal }),
);
