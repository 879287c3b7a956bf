// Loaded into every process of the test suite (the test runner through integration-tier.ts, the
// processes it starts through `node --import`): a connection to a loopback port where a service on
// this machine listens by default (Redis's 6379, the service's own Redis 6390, its API 8080) never
// reaches whatever listens there. It is refused, as if nothing listened, so "REDIS_URL unset and no
// service running" holds for a test whatever runs on the machine; or, where AIOPS_TEST_SERVICE_PORTS
// maps it (`6390=41234,8080=41235`), it reaches that port instead: a test's own service standing
// where a service on the defaults would (see test/cli/beside-a-service.test.ts).
import net from 'node:net';

/** The defaults of a service on this machine; test/kernel/config.test.ts checks them against the configuration's. */
export const GUARDED_PORTS = [6379, 6390, 8080];

const LOOPBACK = new Set([undefined, '', 'localhost', '127.0.0.1', '::1', '[::1]', '0.0.0.0', '::']);

function standIns() {
  const map = new Map();
  for (const entry of (process.env.AIOPS_TEST_SERVICE_PORTS ?? '').split(',').filter(Boolean)) {
    const [from, to] = entry.split('=').map(Number);
    map.set(from, to);
  }
  return map;
}

/** What a call of Socket#connect asks for: its options (net.connect hands them over as a list) and its callback. */
function request(args) {
  const [first, second, third] = Array.isArray(args[0]) ? args[0] : args;
  if (typeof first === 'object' && first !== null) return { options: first, callback: second };
  if (typeof first === 'number' || /^\d+$/.test(String(first)))
    return typeof second === 'string'
      ? { options: { port: first, host: second }, callback: third }
      : { options: { port: first }, callback: second };
  return undefined;
}

const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(...args) {
  const asked = request(args);
  const port = Number(asked?.options.port);
  if (!asked || asked.options.path !== undefined || !GUARDED_PORTS.includes(port) || !LOOPBACK.has(asked.options.host)) {
    return connect.apply(this, args);
  }
  const callback = typeof asked.callback === 'function' ? [asked.callback] : [];
  const standIn = standIns().get(port);
  if (standIn) return connect.call(this, { ...asked.options, port: standIn, host: '127.0.0.1' }, ...callback);
  const address = asked.options.host || '127.0.0.1';
  const refused = Object.assign(new Error(`connect ECONNREFUSED ${address}:${port}`), {
    code: 'ECONNREFUSED',
    errno: -111,
    syscall: 'connect',
    address,
    port,
  });
  this.connecting = true;
  process.nextTick(() => this.destroy(refused));
  return this;
};
