// Which platform a native binary is built for, read from its header: the pack checks every binary
// it ships against the platform it is named for (some grammar packages publish an x86-64 binary as
// their linux-arm64 one), and the install test checks the packed package the same way.
import { closeSync, openSync, readSync } from 'node:fs';

/** ELF e_machine (linux) and Mach-O cputype (darwin) values, by Node's name of the architecture. */
const ELF_MACHINES: Readonly<Record<string, number>> = { x64: 62, arm64: 183 };
const MACHO_CPUS: Readonly<Record<string, number>> = { x64: 0x01000007, arm64: 0x0100000c };

function header(binary: string): Buffer {
  const fd = openSync(binary, 'r');
  try {
    const bytes = Buffer.alloc(4096);
    return bytes.subarray(0, readSync(fd, bytes, 0, bytes.length, 0));
  } finally {
    closeSync(fd);
  }
}

/** Whether `binary` is built for `platform` (`linux-arm64`, `darwin-x64`, ...): an ELF or Mach-O file of that architecture, or a universal Mach-O file holding it. */
export function builtFor(binary: string, platform: string): boolean {
  const [os, arch] = platform.split('-');
  const bytes = header(binary);
  if (bytes.length < 20) return false;
  if (os === 'linux') return bytes.readUInt32BE(0) === 0x7f454c46 && bytes.readUInt16LE(18) === ELF_MACHINES[arch];
  if (os !== 'darwin') return false;
  if (bytes.readUInt32LE(0) === 0xfeedfacf) return bytes.readUInt32LE(4) === MACHO_CPUS[arch];
  if (bytes.readUInt32BE(0) !== 0xcafebabe) return false;
  const count = Math.min(bytes.readUInt32BE(4), Math.floor((bytes.length - 8) / 20));
  return Array.from({ length: count }, (_, i) => bytes.readUInt32BE(8 + 20 * i)).includes(MACHO_CPUS[arch]);
}
