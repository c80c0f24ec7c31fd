import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { acquireLock, isProcessAlive, readLockPid } from '../src/lock-file.js';
import { tempDir } from './helpers.js';

test("a lock whose holder was killed but not reaped yet (a zombie: its parent does not wait for it) is taken over", { skip: !existsSync('/proc/self/stat') && 'no /proc' }, async () => {
  // The shell starts a holder, then becomes a process that never reaps it.
  const parent = spawn('sh', ['-c', 'sleep 60 & echo $!; exec sleep 60'], { stdio: ['ignore', 'pipe', 'ignore'] });
  try {
    const holder = await new Promise<number>((resolve) => parent.stdout.once('data', (data: Buffer) => resolve(Number(String(data).trim()))));
    const lock = join(tempDir('repomap-lock-'), 'daemon.lock');
    writeFileSync(lock, `${holder}\n`);
    assert.equal(isProcessAlive(holder), true);
    assert.deepEqual(acquireLock(lock), { ok: false, holder });
    process.kill(holder, 'SIGKILL');
    const state = () => readFileSync(`/proc/${holder}/stat`, 'utf8').split(') ').pop()![0];
    while (state() !== 'Z') await new Promise((resume) => setTimeout(resume, 10));
    assert.equal(isProcessAlive(holder), false, 'a zombie is no live holder, though its pid answers');
    assert.deepEqual(acquireLock(lock), { ok: true });
    assert.equal(readLockPid(lock), process.pid);
  } finally {
    parent.kill('SIGKILL');
  }
});
