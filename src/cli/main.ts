import { UserError } from '../errors.js';
import { MAP_HELP, mapCommand } from './map-command.js';

const HELP = `Usage: repomap <command> [options]

A ranked, token-budgeted map of a repository for coding agents.

Commands:
  map [ROOT]     print the map of ROOT, computed in this process (see 'repomap map --help')
  help           show this help

Options:
  -h, --help     show this help
  -v, --version  print the version
`;

const COMMANDS: Record<string, (args: string[]) => Promise<number>> = {
  map: mapCommand,
};

/** Runs the CLI; returns the exit code. User mistakes print one line, never a stack trace. */
export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  try {
    if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
      process.stdout.write(HELP);
      return command === undefined ? 2 : 0;
    }
    if (command === '--version' || command === '-v') {
      process.stdout.write(`${await version()}\n`);
      return 0;
    }
    const run = COMMANDS[command];
    if (!run) throw new UserError(`unknown command '${command}' (commands: ${Object.keys(COMMANDS).join(', ')})`);
    return await run(rest);
  } catch (err) {
    if (err instanceof UserError) {
      process.stderr.write(`repomap: ${err.message}\n`);
      return err.exitCode;
    }
    throw err;
  }
}

async function version(): Promise<string> {
  const { readFile } = await import('node:fs/promises');
  const { join } = await import('node:path');
  const { packageRoot } = await import('../paths.js');
  const pkg = JSON.parse(await readFile(join(packageRoot, 'package.json'), 'utf8')) as { version: string };
  return pkg.version;
}

export { MAP_HELP };
