// One pattern against one server: `connections` abusive connections for `seconds`, each opened
// again (after a short pause) whenever the server closes it, as an attacker would. What the server
// did is summed up over every connection: GOAWAY codes, connections it closed, connections still
// open at the end. Runs on a thread of its own (./attack-thread.ts).
import { setTimeout as sleep } from 'node:timers/promises';
import { AbusiveConnection } from './connection.ts';
import { H2_ERROR } from './frames.ts';
import { type AttackTarget, OPENING, PATTERNS, type Pattern } from './patterns.ts';

/** A closed connection is opened again after this pause (keeps reconnect loops to ≤ 100/s a slot). */
const RECONNECT_PAUSE_MS = 10;
/** How long a connection that stopped reading reads at the end, to see a GOAWAY behind its ACKs. */
const DRAIN_MS = 200;

export interface AttackOutcome {
  /** Connections opened (and refused by the server at connect). */
  connections: number;
  refused: number;
  /** GOAWAY error code name → connections that received one. */
  goAways: Record<string, number>;
  closedByServer: number;
  /** Still open when the pattern ended. */
  kept: number;
  framesSent: number;
  bytesSent: number;
  resetsReceived: number;
  headersReceived: number;
}

export interface AttackJob {
  readonly pattern: string;
  readonly target: AttackTarget;
  readonly seconds: number;
  readonly connections: number;
}

const CODE_NAMES = new Map<number, string>(Object.entries(H2_ERROR).map(([name, code]) => [code, name]));
const codeName = (code: number): string => CODE_NAMES.get(code) ?? `0x${code.toString(16)}`;

async function slot(
  pattern: Pattern,
  target: AttackTarget,
  index: number,
  deadline: number,
  sum: AttackOutcome,
) {
  while (Date.now() < deadline) {
    let connection: AbusiveConnection;
    try {
      connection = await AbusiveConnection.open(target.host, target.port);
    } catch {
      sum.refused++;
      await sleep(RECONNECT_PAUSE_MS);
      continue;
    }
    sum.connections++;
    connection.deadline = deadline;
    if (pattern.handshake) {
      connection.acksSettings = true;
      await connection.send(OPENING, 1);
      // The server's SETTINGS are ACKed before the pattern starts: an ACK later could fall between
      // a HEADERS and its CONTINUATION (a protocol error of ours, not the pattern's).
      await connection.until(() => connection.settingsReceived);
      // The floods stop reading here: the server's answers pile up.
      if (!pattern.reads) connection.socket.pause();
    }
    await pattern.run(connection, target, index);
    await connection.finish(DRAIN_MS);
    if (connection.goAwayCode !== undefined) {
      const name = codeName(connection.goAwayCode);
      sum.goAways[name] = (sum.goAways[name] ?? 0) + 1;
    }
    if (connection.closedByServer) sum.closedByServer++;
    else sum.kept++;
    sum.framesSent += connection.framesSent;
    sum.bytesSent += connection.bytesSent;
    sum.resetsReceived += connection.resetsReceived;
    sum.headersReceived += connection.headersReceived;
    if (connection.closedByServer) await sleep(RECONNECT_PAUSE_MS);
  }
}

export const noOutcome = (): AttackOutcome => ({
  connections: 0,
  refused: 0,
  goAways: {},
  closedByServer: 0,
  kept: 0,
  framesSent: 0,
  bytesSent: 0,
  resetsReceived: 0,
  headersReceived: 0,
});

/** Runs the pattern; `onTimeUp` is called when its time is up (the connections are then closed). */
export async function runAttack(job: AttackJob, onTimeUp: () => void = () => {}): Promise<AttackOutcome> {
  const pattern = PATTERNS.find((p) => p.name === job.pattern);
  if (pattern === undefined) throw new Error(`unknown pattern ${job.pattern}`);
  const sum = noOutcome();
  const deadline = Date.now() + job.seconds * 1_000;
  // Told once: at the deadline, or when the last connection ended first.
  let told = false;
  const tell = (): void => {
    if (!told) onTimeUp();
    told = true;
  };
  const timer = setTimeout(tell, deadline - Date.now());
  await Promise.all(
    Array.from({ length: job.connections }, (_, i) => slot(pattern, job.target, i, deadline, sum)),
  );
  clearTimeout(timer);
  tell();
  return sum;
}
