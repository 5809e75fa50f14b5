// Built-in IP network functions of Terraform 1.11: cidrhost, cidrnetmask, cidrsubnet and cidrsubnets, for
// IPv4 and IPv6. Address parsing follows Terraform's ipaddr package (Go 1.16's net: decimal IPv4 octets with
// leading zeros accepted), arithmetic follows go-cidr (including its big.Int quirks for negative numbers),
// and addresses print like Go's net.IP.String (RFC 5952 compression, IPv4-mapped as dotted quad).
// Messages carry no trailing period: the call wrapper appends one (see crypto.ts).

import * as T from '../types';
import { Value } from '../value';
import { FuncArgError, FuncError, type FuncSpec } from './function';

interface Net {
  /** Address as an integer of `bits` bits (already masked). */
  ip: bigint;
  bits: 32 | 128;
  prefix: number;
}

function parseIPv4(s: string): bigint | undefined {
  const parts = s.split('.');
  if (parts.length !== 4) return undefined;
  let v = 0n;
  for (const p of parts) {
    if (!/^\d{1,3}$/.test(p)) return undefined;
    const n = parseInt(p, 10);
    if (n > 255) return undefined;
    v = (v << 8n) | BigInt(n);
  }
  return v;
}

function parseIPv6(s: string): bigint | undefined {
  let head = s;
  let tailV4: bigint | undefined;
  const lastColon = s.lastIndexOf(':');
  if (s.includes('.', lastColon)) {
    tailV4 = parseIPv4(s.slice(lastColon + 1));
    if (tailV4 === undefined) return undefined;
    head = s.slice(0, lastColon + 1) + '0:0';
  }
  const dbl = head.split('::');
  if (dbl.length > 2) return undefined;
  const parseGroups = (x: string): number[] | undefined => {
    if (x === '') return [];
    const gs = x.split(':');
    const out: number[] = [];
    for (const g of gs) {
      if (!/^[0-9A-Fa-f]{1,4}$/.test(g)) return undefined;
      out.push(parseInt(g, 16));
    }
    return out;
  };
  const a = parseGroups(dbl[0]);
  const b = dbl.length === 2 ? parseGroups(dbl[1]) : [];
  if (!a || !b) return undefined;
  let groups: number[];
  if (dbl.length === 2) {
    if (a.length + b.length > 7) return undefined;
    groups = [...a, ...new Array(8 - a.length - b.length).fill(0), ...b];
  } else {
    if (a.length !== 8) return undefined;
    groups = a;
  }
  let v = 0n;
  for (const g of groups) v = (v << 16n) | BigInt(g);
  if (tailV4 !== undefined) v = (v & ~0xffffffffn) | tailV4;
  return v;
}

function maskOf(prefix: number, bits: number): bigint {
  const all = (1n << BigInt(bits)) - 1n;
  return (all << BigInt(bits - prefix)) & all;
}

/** ipaddr.ParseCIDR: the network (IP masked). IPv4-mapped IPv6 networks are kept as 128-bit. */
function parseCIDR(s: string): Net {
  const fail = () => new FuncError(`invalid CIDR expression: invalid CIDR address: ${s}`);
  const slash = s.indexOf('/');
  if (slash < 0) throw fail();
  const addr = s.slice(0, slash);
  const pfx = s.slice(slash + 1);
  if (!/^\d+$/.test(pfx)) throw fail();
  const prefix = parseInt(pfx, 10);
  const v4 = parseIPv4(addr);
  if (v4 !== undefined) {
    if (prefix > 32) throw fail();
    return { ip: v4 & maskOf(prefix, 32), bits: 32, prefix };
  }
  const v6 = addr.includes(':') ? parseIPv6(addr) : undefined;
  if (v6 === undefined || prefix > 128) throw fail();
  return { ip: v6 & maskOf(prefix, 128), bits: 128, prefix };
}

/** Go's intToIP: the absolute value's bytes packed at the end of a bits/8 array. */
function toIP(v: bigint, bits: number): bigint {
  const a = v < 0n ? -v : v;
  return a & ((1n << BigInt(bits)) - 1n);
}

export function ipString(v: bigint, bits: number): string {
  if (bits === 32) return [24n, 16n, 8n, 0n].map((s) => ((v >> s) & 255n).toString()).join('.');
  const groups: number[] = [];
  for (let k = 7; k >= 0; k--) groups.push(Number((v >> BigInt(k * 16)) & 0xffffn));
  // IPv4-mapped addresses print as dotted quads.
  if (groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff) return ipString(v & 0xffffffffn, 32);
  let bestStart = -1;
  let bestLen = 0;
  for (let k = 0; k < 8; ) {
    if (groups[k] !== 0) {
      k++;
      continue;
    }
    let j = k;
    while (j < 8 && groups[j] === 0) j++;
    if (j - k > bestLen && j - k >= 2) {
      bestStart = k;
      bestLen = j - k;
    }
    k = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestStart < 0) return hex.join(':');
  return hex.slice(0, bestStart).join(':') + '::' + hex.slice(bestStart + bestLen).join(':');
}

const netString = (n: Net) => `${ipString(n.ip, n.bits)}/${n.prefix}`;

/** gocty into *big.Int: numbers must be whole. */
function bigArg(v: Value): bigint {
  const b = v.num.toBigInt();
  if (b === undefined) throw new FuncError('value must be a whole number');
  return b;
}
/** gocty into int. */
function intArg(v: Value): number {
  const b = v.num.toBigInt();
  if (b === undefined || b > 9223372036854775807n || b < -9223372036854775808n)
    throw new FuncError('value must be a whole number, between -9223372036854775808 and 9223372036854775807');
  return globalThis.Number(b);
}

/** big.Int.Uint64(): the low 64 bits of the absolute value. */
const uint64 = (b: bigint) => (b < 0n ? -b : b) & 0xffffffffffffffffn;

function hostBig(net: Net, num: bigint): bigint {
  const hostLen = net.bits - net.prefix;
  const maxHost = (1n << BigInt(hostLen)) - 1n;
  let n64 = uint64(num);
  if (n64 > 0x7fffffffffffffffn) n64 -= 1n << 64n; // big.NewInt(int64(...))
  if (num < 0n) {
    n64 = -num - 1n;
    num = maxHost - n64;
  }
  if (n64 > maxHost) throw new FuncError(`prefix of ${net.prefix} does not accommodate a host numbered ${num}`);
  return toIP(net.ip | num, net.bits);
}

function subnetBig(net: Net, newBits: number, num: bigint): Net {
  const newPrefix = net.prefix + newBits;
  if (newPrefix > net.bits) throw new FuncError(`insufficient address space to extend prefix of ${net.prefix} by ${newBits}`);
  const maxNet = newBits >= 64 ? 0xffffffffffffffffn : (1n << BigInt(newBits < 0 ? (newBits % 64) + 64 : newBits)) - 1n;
  if (uint64(num) > maxNet) throw new FuncError(`prefix extension of ${newBits} does not accommodate a subnet numbered ${num}`);
  const ip = toIP(net.ip | (num << BigInt(net.bits - newPrefix)), net.bits);
  return { ip, bits: net.bits, prefix: newPrefix };
}

function lastAddr(n: Net): bigint {
  return n.ip | (((1n << BigInt(n.bits)) - 1n) >> BigInt(n.prefix));
}

export const functions: Record<string, FuncSpec> = {
  cidrhost: {
    params: [
      { name: 'prefix', type: T.String },
      { name: 'hostnum', type: T.Number },
    ],
    returns: T.String,
    impl: (args) => {
      const num = bigArg(args[1]);
      const net = parseCIDR(args[0].str);
      return Value.string(ipString(hostBig(net, num), net.bits));
    },
  },
  cidrnetmask: {
    params: [{ name: 'prefix', type: T.String }],
    returns: T.String,
    impl: (args) => {
      const net = parseCIDR(args[0].str);
      if (net.bits !== 32) throw new FuncError(`IPv6 addresses cannot have a netmask: ${args[0].str}`);
      return Value.string(ipString(maskOf(net.prefix, 32), 32));
    },
  },
  cidrsubnet: {
    params: [
      { name: 'prefix', type: T.String },
      { name: 'newbits', type: T.Number },
      { name: 'netnum', type: T.Number },
    ],
    returns: T.String,
    impl: (args) => {
      const newBits = intArg(args[1]);
      const num = bigArg(args[2]);
      const net = parseCIDR(args[0].str);
      return Value.string(netString(subnetBig(net, newBits, num)));
    },
  },
  cidrsubnets: {
    params: [{ name: 'prefix', type: T.String }],
    varParam: { name: 'newbits', type: T.Number },
    returns: T.List(T.String),
    impl: (args) => {
      let net: Net;
      try {
        net = parseCIDR(args[0].str);
      } catch (e) {
        throw new FuncArgError(0, (e as Error).message);
      }
      if (args.length === 1) return Value.list([], T.String);
      const asInt = (k: number) => {
        try {
          return intArg(args[k]);
        } catch (e) {
          throw new FuncArgError(k, (e as Error).message);
        }
      };
      const first = asInt(1) + net.prefix;
      // PreviousSubnet: the subnet of length `first` just below the base network.
      const all = (1n << BigInt(net.bits)) - 1n;
      const prevIP = ((net.ip - 1n) & all) & maskOf(Math.min(first, net.bits), net.bits);
      let current: Net = { ip: prevIP, bits: net.bits, prefix: Math.min(first, net.bits) };
      const out: Value[] = [];
      for (let k = 1; k < args.length; k++) {
        let len = asInt(k);
        if (len < 1) throw new FuncArgError(k, 'must extend prefix by at least one bit');
        if (len > 32) throw new FuncArgError(k, 'may not extend prefix by more than 32 bits');
        len += net.prefix;
        if (len > net.bits)
          throw new FuncArgError(k, `would extend prefix to ${len} bits, which is too long for an ${net.bits === 32 ? 'IPv4' : 'IPv6'} address`);
        // NextSubnet
        const mask = maskOf(len, net.bits);
        const currentSubnet: Net = { ip: lastAddr(current) & mask, bits: net.bits, prefix: len };
        const last = (lastAddr(currentSubnet) + 1n) & all;
        const next: Net = { ip: last & mask, bits: net.bits, prefix: len };
        const rollover = last === 0n;
        const contains = (next.ip & maskOf(net.prefix, net.bits)) === net.ip;
        if (rollover || !contains)
          throw new FuncArgError(k, `not enough remaining address space for a subnet with a prefix of ${len} bits after ${netString(current)}`);
        current = next;
        out.push(Value.string(netString(current)));
      }
      return Value.list(out, T.String);
    },
  },
};
