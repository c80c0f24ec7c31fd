// Typed arrays that live for one call and are lent again to the next. A map request needs arrays
// over every file; fresh ones that a young-generation collection finds in use move to the old
// generation, and their memory, outside the heap, brings on major collections (V8's external
// memory pressure), which can land during a save. Lent again, the same memory brings on none.
// Only for an array that does not outlive the call that takes it: the next call gets its memory.

const buffers = new Map<string, ArrayBuffer>();

function bufferFor(slot: string, bytes: number): ArrayBuffer {
  let buffer = buffers.get(slot);
  if (!buffer || buffer.byteLength < bytes) {
    // A quarter more: a repository that grows by a few files does not allocate again.
    buffer = new ArrayBuffer(Math.ceil(bytes * 1.25) + 8);
    buffers.set(slot, buffer);
  }
  return buffer;
}

/**
 * `length` numbers, each `fill`, in the memory of `slot` (one slot per call site); with `fill`
 * null, as the slot's last user left them (zeroes in new memory).
 */
export function scratchFloat64(slot: string, length: number, fill: number | null = 0): Float64Array {
  const array = new Float64Array(bufferFor(slot, 8 * length), 0, length);
  return fill === null ? array : array.fill(fill);
}

export function scratchUint32(slot: string, length: number, fill = 0): Uint32Array {
  return new Uint32Array(bufferFor(slot, 4 * length), 0, length).fill(fill);
}

export function scratchUint8(slot: string, length: number, fill = 0): Uint8Array {
  return new Uint8Array(bufferFor(slot, length), 0, length).fill(fill);
}
