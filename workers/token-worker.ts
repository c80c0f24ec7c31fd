// The tokenizer thread: loads one tiktoken encoding (half a second of the main thread's start
// otherwise) and counts the tokens of the lines it is sent, answering on the port and then
// setting the shared signal to the request's number, which wakes the caller (see src/pack/tokens.ts).
import { workerData } from 'node:worker_threads';
import { get_encoding } from 'tiktoken';
import type { TokenReply, TokenRequest, TokenWorkerData } from '../src/pack/token-protocol.js';
import { type TokenCounter, wholeTextCounter } from '../src/pack/tokens.js';
import { errorMessage } from '../src/errors.js';

const { encoding, port, signal, signalEarly } = workerData as TokenWorkerData;
let count: TokenCounter | undefined;
let failure: string | undefined;
try {
  count = wholeTextCounter(get_encoding(encoding));
} catch (err) {
  failure = `could not load the ${encoding} tokenizer: ${errorMessage(err)}`;
}

port.on('message', ({ seq, lines }: TokenRequest) => {
  let reply: TokenReply;
  try {
    reply = count ? { seq, counts: lines.map(count) } : { seq, error: failure! };
  } catch (err) {
    reply = { seq, error: errorMessage(err) };
  }
  if (signalEarly) {
    answered(seq);
    const until = performance.now() + 0.05;
    while (performance.now() < until); // the message crosses a moment after the signal
    port.postMessage(reply);
  } else {
    port.postMessage(reply);
    answered(seq);
  }
});

function answered(seq: number): void {
  Atomics.store(signal, 0, seq);
  Atomics.notify(signal, 0);
}
