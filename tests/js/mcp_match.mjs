// The official TypeScript MCP SDK client against the arena's MCP server at URL (argv[2]): lists the
// tools, plays a whole split_100 match against the built-in `concession` opponent, and provokes
// refusals. Prints one JSON object: what the client saw. Usage: node mcp_match.mjs http://127.0.0.1:PORT/mcp
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const client = new Client({ name: "negotiation-js-test", version: "1.0.0" });
await client.connect(new StreamableHTTPClientTransport(new URL(process.argv[2])));

// A tool's answer as the client gives it to its user: structured content, or the refusal in its text.
async function call(name, args) {
  try {
    const result = await client.callTool({ name, arguments: args });
    if (result.isError) return JSON.parse(result.content[0].text);
    return result.structuredContent;
  } catch (thrown) {
    return { thrown: String(thrown) }; // what the TS client does with an answer it rejects
  }
}

const tools = (await client.listTools()).tools.map((tool) => tool.name);
const started = await call("start_game", { game_id: "split_100", opponents: ["concession"] });
const seat = { match_id: started.match_id, token: started.token };
const refusals = {
  unknown_game: await call("get_game_rules", { game_id: "chess" }),
  invalid_payload: await call("perform_action", { ...seat, action_type: "propose", payload: { mine: 500 } }),
};
let state = await call("get_turn_state", { ...seat, wait_seconds: 5 });
let moves = 0;
while (state.status !== "finished" && moves < 50) {
  if (state.your_turn) {
    const names = state.allowed_actions.map((action) => action.name);
    const move = names.includes("accept") ? ["accept", {}] : ["propose", { mine: 50 }];
    const outcome = await call("perform_action", { ...seat, action_type: move[0], payload: move[1] });
    if (outcome.error || outcome.thrown) throw new Error(JSON.stringify(outcome));
    moves += 1;
  }
  state = await call("get_turn_state", { ...seat, since: state.cursor, wait_seconds: 5 });
}
const result = await call("get_result", { match_id: seat.match_id });
await client.close();
console.log(JSON.stringify({ tools, started, moves, status: state.status, result, refusals }));
