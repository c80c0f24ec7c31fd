#!/usr/bin/env node
import { daemonMain } from '../dist/src/daemon/main.js';

// Everything is closed by the time daemonMain returns; exit even if a library left a handle open.
process.exit(await daemonMain(process.argv.slice(2)));
