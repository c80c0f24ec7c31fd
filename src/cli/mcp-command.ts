// `repomap mcp`: its options and help, and the MCP server (mcp/server.ts) run over stdio for one root.
import { realpathSync } from 'node:fs';
import { homedir } from 'node:os';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { configHelp, readProjectConfig } from '../config.js';
import { RepomapError, badRequest } from '../errors.js';
import { answerMalformedMessages, closeWhenAnswered, createMcpServer, refuseBadArguments, refuseBeforeInitialize } from '../mcp/server.js';
import { inputLines } from '../mcp/input-lines.js';
import { packageVersion, resolveRoot, rootRelativeGlobs } from '../paths.js';
import { mcpTestOptions } from '../test-hooks.js';
import { parseCommandArgs } from './args.js';
import { START_HELP, START_OPTIONS, startOptionsOf } from './start-options.js';

export const MCP_HELP = `Usage: repomap mcp [ROOT] [options]

Serves the Model Context Protocol over stdio for the repository at ROOT (default: the current
directory; a subfolder of a git work tree maps only what is under it), backed by its daemon
(started when needed). Tools: repo_map, find_symbol,
repo_status. Configure an MCP client with the installed command:

  {"mcpServers": {"repomap": {"command": "repomap", "args": ["mcp", "/path/to/repo"]}}}

(Claude Code: claude mcp add repomap -- repomap mcp; the README has Cursor's and VS Code's.)
A ROOT it cannot serve is said on stderr and answered to every tool call.
Without ROOT the server maps the folder it is started in, but not the home folder or /.

Options (used when this starts the daemon):
${START_HELP}  -h, --help           show this help

${configHelp()}`;

export async function mcpCommand(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs('mcp', args, { ...START_OPTIONS, help: { type: 'boolean', short: 'h' } });
  if (values.help) {
    process.stdout.write(MCP_HELP);
    return 0;
  }
  if (positionals.length > 1) throw badRequest(`mcp takes one ROOT, got ${positionals.length}`);
  const startOptions = startOptionsOf(values);
  const { root, refusal } = await servedRoot(positionals[0]);
  if (refusal) process.stderr.write(`repomap: ${refusal}\n`); // clients log a server's stderr
  // A mistake in a flag is the command line's, said as a command says it (exit 2); checked now, not at the first call by the daemon connect starts.
  else rootRelativeGlobs(root, startOptions.exclude ?? [], 'exclude');
  const server = createMcpServer(root, await packageVersion(), { refusal, ...startOptions, ...mcpTestOptions(process.env) });
  // Blank lines are dropped before the SDK reads the input (it would answer each with a parse
  // error), and lines too long or too deeply nested for it are answered here (see inputLines).
  // Input comes on a later turn of the event loop, once the transport below exists.
  const input = process.stdin.pipe(
    inputLines((refusal) => {
      process.stderr.write(`repomap mcp: refused a line: ${refusal.error.message}\n`); // clients log a server's stderr
      void transport.send(refusal as unknown as JSONRPCMessage);
    }),
  );
  const transport = new StdioServerTransport(input, process.stdout);
  // The transport pauses its input when it closes; stdin, which feeds it, must stop too, or it holds the process.
  const closed = new Promise<void>(
    (done) =>
      (transport.onclose = () => {
        process.stdin.unpipe(input);
        process.stdin.pause();
        done();
      }),
  );
  await server.connect(transport);
  refuseBadArguments(transport);
  // After refuseBadArguments: the last installed sees a message first, and a request before initialize is refused for that alone.
  refuseBeforeInitialize(transport);
  answerMalformedMessages(transport);
  // The SDK's stdio transport does not hear its input end: a client that closes the server's stdin
  // ends the server (and with it the connection to the daemon, see createMcpServer) once every
  // request it sent is answered. The lines' end, not stdin's: by then the transport has read them all.
  input.once('end', closeWhenAnswered(transport));
  await closed;
  return 0;
}

/**
 * The root served, or why it is not: a ROOT that is no folder or whose project config is in error
 * (said now, not at the first call by the daemon connect starts), or a working folder the server
 * does not index (unlikelyRoot). A refused root is still served, each tool call answered with the
 * reason as a tool error: a server that exited before the client's initialize would leave the
 * client only "Connection closed" to show.
 */
async function servedRoot(given: string | undefined): Promise<{ root: string; refusal?: string }> {
  try {
    const root = await resolveRoot(given ?? '.');
    const refusal = given === undefined ? unlikelyRoot(root) : undefined;
    if (refusal) return { root, refusal };
    readProjectConfig(root);
    return { root };
  } catch (err) {
    if (!(err instanceof RepomapError) || err.code !== 'bad-request') throw err;
    return { root: given ?? '.', refusal: err.message };
  }
}

/**
 * Why a root the server got from its working folder, not from a ROOT, is not indexed: the home
 * folder or the file system root, where an MCP client that starts servers in its own folder
 * would have a daemon index everything below. Undefined for any other folder.
 */
function unlikelyRoot(root: string): string | undefined {
  const home = realHome();
  if (root !== '/' && root !== home) return undefined;
  const what = root === '/' ? 'the file system root' : 'your home folder';
  return (
    `repomap mcp was started without a ROOT in ${root} (${what}), which it does not index: ` +
    'give the repository as ROOT (the server\'s "args": ["mcp", "/path/to/repo"]), or start the MCP client in the repository'
  );
}

function realHome(): string | undefined {
  try {
    return realpathSync(homedir());
  } catch {
    return undefined;
  }
}
