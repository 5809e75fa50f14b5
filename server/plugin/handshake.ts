// go-plugin's handshake (hashicorp/go-plugin v1.6.0 as Terraform 1.11.4 uses it), for both ends.
//
// API (stable; used by serve.ts and the client in server/plugin/client/):
//   MAGIC_COOKIE_KEY / MAGIC_COOKIE_VALUE  — Terraform's provider cookie; the client sets it in the plugin's env.
//   NOT_A_PLUGIN_MESSAGE                   — what a plugin writes to stderr (then exit 1) when the cookie is wrong.
//   CORE_PROTOCOL_VERSION = 1
//   checkMagicCookie(env): boolean
//   clientVersions(env): number[]          — PLUGIN_PROTOCOL_VERSIONS, as the server reads it (bad entries skipped).
//   negotiateVersion(client, server)       — the server's choice: the highest server version the client lists,
//                                            else the lowest server version (the client then reports the mismatch).
//   formatHandshake(h): string             — `1|6|unix|/tmp/plugin123/plugin.sock|grpc|<cert>` plus "\n"; the
//                                            cert is base64 RawStd (no padding) of the DER, empty without mTLS.
//   parseHandshake(line, opts): Handshake  — the client's reading, with go-plugin's error texts (HandshakeError):
//                                            < 4 fields, bad core version, version not offered, unknown network,
//                                            protocol other than grpc; field 6 is a certificate only when longer
//                                            than 50 characters.
//   pluginEnv(opts): Record<string,string> — the variables Terraform adds to a plugin's environment.

export const MAGIC_COOKIE_KEY = 'TF_PLUGIN_MAGIC_COOKIE';
export const MAGIC_COOKIE_VALUE = 'd602bf8f470bc67ca7faa0386276bbdd4330efaf76d1a219cb4d6991ca9872b2';
export const CORE_PROTOCOL_VERSION = 1;
export const NOT_A_PLUGIN_MESSAGE =
  'This binary is a plugin. These are not meant to be executed directly.\n' +
  'Please execute the program that consumes these plugins, which will\n' +
  'load any plugins automatically\n';

export interface Handshake {
  core: number;
  /** The negotiated application protocol version (5 or 6 for Terraform providers). */
  appVersion: number;
  network: 'unix' | 'tcp';
  /** A socket path, or host:port. */
  address: string;
  protocol: 'grpc' | 'netrpc';
  /** The server's certificate (DER) when it serves mTLS. */
  serverCertDer?: Buffer;
  /** The seventh field (gRPC broker multiplexing), when present. */
  multiplex?: boolean;
}

export class HandshakeError extends Error {}

export function checkMagicCookie(env: NodeJS.ProcessEnv): boolean {
  return env[MAGIC_COOKIE_KEY] === MAGIC_COOKIE_VALUE;
}

export function clientVersions(env: NodeJS.ProcessEnv): number[] {
  const vs = env.PLUGIN_PROTOCOL_VERSIONS;
  if (!vs) return [];
  return vs
    .split(',')
    .filter((s) => /^[+-]?\d+$/.test(s))
    .map(Number);
}

export function negotiateVersion(client: readonly number[], server: readonly number[]): number {
  const sv = [...server].sort((a, b) => b - a);
  for (const v of sv) if (client.includes(v)) return v;
  return sv[sv.length - 1];
}

/** base64 "RawStd": standard alphabet without padding, as go-plugin prints the certificate. */
export function rawStdBase64(der: Uint8Array): string {
  return Buffer.from(der).toString('base64').replace(/=+$/, '');
}

export function formatHandshake(h: Omit<Handshake, 'core' | 'protocol'> & { protocol?: 'grpc' }): string {
  const fields = [String(CORE_PROTOCOL_VERSION), String(h.appVersion), h.network, h.address, h.protocol ?? 'grpc', h.serverCertDer ? rawStdBase64(h.serverCertDer) : ''];
  if (h.multiplex !== undefined) fields.push(String(h.multiplex));
  return fields.join('|') + '\n';
}

export function parseHandshake(rawLine: string, opts: { versions: readonly number[] }): Handshake {
  const line = rawLine.trim();
  const parts = line.split('|');
  if (parts.length < 4) throw new HandshakeError(`Unrecognized remote plugin message: ${line}`);
  if (!/^[+-]?\d+$/.test(parts[0])) throw new HandshakeError(`Error parsing core protocol version: strconv.Atoi: parsing ${JSON.stringify(parts[0])}: invalid syntax`);
  const core = Number(parts[0]);
  if (core !== CORE_PROTOCOL_VERSION)
    throw new HandshakeError(
      `Incompatible core API version with plugin. Plugin version: ${parts[0]}, Core version: ${CORE_PROTOCOL_VERSION}\n\n` +
        'To fix this, the plugin usually only needs to be recompiled.\nPlease report this to the plugin author.',
    );
  if (!/^[+-]?\d+$/.test(parts[1])) throw new HandshakeError(`Error parsing protocol version ${JSON.stringify(parts[1])}: strconv.Atoi: parsing ${JSON.stringify(parts[1])}: invalid syntax`);
  const appVersion = Number(parts[1]);
  if (!opts.versions.includes(appVersion)) throw new HandshakeError(`Incompatible API version with plugin. Plugin version: ${appVersion}, Client versions: [${opts.versions.join(' ')}]`);
  const network = parts[2];
  if (network !== 'unix' && network !== 'tcp') throw new HandshakeError(`Unknown address type: ${parts[3]}`);
  const protocol = parts.length >= 5 ? parts[4] : 'netrpc';
  if (protocol !== 'grpc') throw new HandshakeError(`Unsupported plugin protocol ${JSON.stringify(protocol)}. Supported: [grpc]`);
  const h: Handshake = { core, appVersion, network, address: parts[3], protocol };
  if (parts.length >= 6 && parts[5].length > 50) {
    const der = Buffer.from(parts[5], 'base64');
    if (!der.length || der[0] !== 0x30) throw new HandshakeError('error parsing server cert: failed to parse certificate');
    h.serverCertDer = der;
  }
  if (parts.length >= 7) h.multiplex = parts[6] === 'true';
  return h;
}

/** The environment Terraform adds for a provider plugin (TLS only when a client certificate is given). */
export function pluginEnv(opts: { versions: readonly number[]; clientCertPem?: string }): Record<string, string> {
  const env: Record<string, string> = {
    [MAGIC_COOKIE_KEY]: MAGIC_COOKIE_VALUE,
    PLUGIN_PROTOCOL_VERSIONS: opts.versions.join(','),
    PLUGIN_MIN_PORT: '10000',
    PLUGIN_MAX_PORT: '25000',
  };
  if (opts.clientCertPem) env.PLUGIN_CLIENT_CERT = opts.clientCertPem;
  return env;
}
