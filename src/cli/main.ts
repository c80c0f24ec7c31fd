import { RepomapError, badRequest } from '../errors.js';
import { exitStatus } from './exit-status.js';
import { packageVersion } from '../paths.js';
import { closest } from './args.js';

const HELP = `Usage: repomap <command> [options]

A ranked, token-budgeted map of a repository for coding agents.

Commands:
  map [ROOT]       print the map of ROOT, computed in this process (see 'repomap map --help')
  query [ROOT]     print the map from ROOT's daemon, starting it if needed (see 'repomap query --help')
  start [ROOT]     start ROOT's daemon in the background
  stop [ROOT]      stop ROOT's daemon
  restart [ROOT]   stop, then start ROOT's daemon
  status [ROOT]    show ROOT's daemon (--all: every running daemon)
  symbols NAME [ROOT]  where NAME is defined and referenced (see 'repomap symbols --help')
  mcp [ROOT]       serve the Model Context Protocol over stdio (see 'repomap mcp --help')
  eval [ROOT]      score the map against ROOT's git history (see 'repomap eval --help')
  help [COMMAND]   show this help, or COMMAND's

Options:
  -h, --help     show this help
  -v, --version  print the version
`;

type Command = (args: string[]) => Promise<number>;

// Loaded on use: `repomap query` must not pay for tree-sitter, LMDB or tiktoken.
const COMMANDS: Record<string, () => Promise<Command>> = {
  map: async () => (await import('./map-command.js')).mapCommand,
  query: async () => (await import('./daemon-commands.js')).queryCommand,
  start: async () => (await import('./daemon-commands.js')).startCommand,
  stop: async () => (await import('./daemon-commands.js')).stopCommand,
  restart: async () => (await import('./daemon-commands.js')).restartCommand,
  status: async () => (await import('./daemon-commands.js')).statusCommand,
  symbols: async () => (await import('./symbols-command.js')).symbolsCommand,
  mcp: async () => (await import('./mcp-command.js')).mcpCommand,
  eval: async () => (await import('./eval-command.js')).evalCommand,
};

/** Runs the CLI; returns the exit code. A RepomapError prints one line, never a stack trace; any other error is a bug and keeps its stack. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    // `repomap help COMMAND` is `repomap COMMAND --help`.
    if (command === 'help' && rest.length > 0) return await main([rest[0], '--help']);
    if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
      process.stdout.write(HELP);
      return command === undefined ? 2 : 0;
    }
    if (command === '--version' || command === '-v') {
      process.stdout.write(`${await packageVersion()}\n`);
      return 0;
    }
    const load = COMMANDS[command];
    if (!load) {
      const guess = closest(command, [...Object.keys(COMMANDS), 'help']);
      throw badRequest(`unknown command '${command}'${guess ? ` (did you mean '${guess}'?)` : ''} (commands: ${Object.keys(COMMANDS).join(', ')})`);
    }
    return await (await load())(rest);
  } catch (err) {
    if (err instanceof RepomapError) {
      process.stderr.write(`repomap: ${err.message}\n`);
      return exitStatus(err.code);
    }
    throw err;
  }
}
