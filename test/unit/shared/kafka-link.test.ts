import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createKafkaLink, unprobedKafkaLink } from '../../../shared/bus/kafka-link.ts';
import { apiVersionsRequest, type ProbeOutcome, probeBroker } from '../../../shared/bus/kafka-probe.ts';
import { silentLogger } from '../../../shared/logger.ts';

/** A probe whose answer the test sets, per broker. */
function scriptedProbe(initial: ProbeOutcome) {
  const answers = new Map<string, ProbeOutcome>();
  return {
    probe: async (broker: string): Promise<ProbeOutcome> => answers.get(broker) ?? initial,
    set: (broker: string, outcome: ProbeOutcome) => answers.set(broker, outcome),
  };
}

const refused: ProbeOutcome = { answered: false, reason: 'connect ECONNREFUSED 127.0.0.1:9092' };
const link = (probe: (broker: string) => Promise<ProbeOutcome>, brokers = ['127.0.0.1:9092']) =>
  createKafkaLink({ brokers, clientId: 't', logger: silentLogger, intervalMs: 5, probe });

describe('createKafkaLink', () => {
  it('fails calls at once while no broker answers, naming Kafka and what the call was doing', async () => {
    const scripted = scriptedProbe(refused);
    const kafka = link(scripted.probe);
    expect(kafka.up).toBe(true);
    await vi.waitFor(() => expect(kafka.up).toBe(false));
    const work = vi.fn(async () => 'done');
    await expect(kafka.guard('publishing to experiment.observations', work)).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringMatching(
        /^kafka: no broker of 127\.0\.0\.1:9092 has answered since \S+ \(connect ECONNREFUSED 127\.0\.0\.1:9092\); publishing to experiment\.observations was not done$/,
      ),
    });
    expect(work).not.toHaveBeenCalled();
    kafka.close();
  });

  it('rejects a call under way when Kafka is lost, and serves again once a broker answers', async () => {
    const scripted = scriptedProbe({ answered: true });
    const kafka = link(scripted.probe);
    const changes: boolean[] = [];
    kafka.onChange((up) => changes.push(up));
    const underWay = kafka.guard('reading the offsets of t', () => new Promise<string>(() => {}));
    scripted.set('127.0.0.1:9092', refused);
    await expect(underWay).rejects.toThrow(
      /reading the offsets of t was under way and may or may not have taken effect/,
    );
    scripted.set('127.0.0.1:9092', { answered: true });
    await vi.waitFor(() => expect(kafka.up).toBe(true));
    await expect(kafka.guard('x', async () => 42)).resolves.toBe(42);
    expect(changes).toEqual([false, true]);
    kafka.close();
  });

  it('takes a broker that is only slow for lost after two silent probes in a row, not one', async () => {
    const silent: ProbeOutcome = { answered: false, reason: 'no answer within 400 ms' };
    let alternate = true;
    let probes = 0;
    const kafka = link(async () => {
      probes += 1;
      return alternate && probes % 2 === 0 ? { answered: true } : silent;
    });
    const changes: boolean[] = [];
    kafka.onChange((up) => changes.push(up));
    await vi.waitFor(() => expect(probes).toBeGreaterThanOrEqual(8));
    expect(changes).toEqual([]);
    alternate = false;
    await vi.waitFor(() => expect(kafka.up).toBe(false));
    expect(kafka.unreachable('x')?.message).toContain('(no answer within 400 ms)');
    kafka.close();
  });

  it('stays up while one broker of three answers, and keeps its state when probes are inconclusive', async () => {
    const scripted = scriptedProbe(refused);
    const brokers = ['a:1', 'b:2', 'c:3'];
    scripted.set('b:2', { answered: true });
    const kafka = link(scripted.probe, brokers);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(kafka.up).toBe(true);
    for (const broker of brokers) scripted.set(broker, { answered: 'unknown' });
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(kafka.up).toBe(true);
    kafka.close();
  });
});

describe('probeBroker', () => {
  let server: Server | undefined;
  afterEach(() => server?.close());

  const listen = (onData: (socket: import('node:net').Socket, data: Buffer) => void): Promise<number> =>
    new Promise((resolve) => {
      server = createServer((socket) => socket.on('data', (data) => onData(socket, data)));
      server.listen(0, '127.0.0.1', () => resolve((server!.address() as { port: number }).port));
    });

  it('sends an ApiVersions v0 request and counts a reply with its correlation id as an answer', async () => {
    const seen: Buffer[] = [];
    const port = await listen((socket, data) => {
      seen.push(data);
      const reply = Buffer.alloc(10);
      reply.writeInt32BE(6, 0);
      reply.writeInt32BE(data.readInt32BE(8), 4);
      socket.write(reply);
    });
    const outcome = await probeBroker(`127.0.0.1:${port}`, {
      timeoutMs: 1_000,
      clientId: 'probe',
      correlationId: 7,
    });
    expect(outcome).toEqual({ answered: true });
    expect(Buffer.concat(seen)).toEqual(apiVersionsRequest(7, 'probe'));
    expect(apiVersionsRequest(7, 'probe').toString('hex')).toBe('0000000f0012000000000007000570726f6265');
  });

  it('counts a listener that never replies as not answering, and a closed port by its error', async () => {
    const port = await listen(() => {});
    expect(
      await probeBroker(`127.0.0.1:${port}`, { timeoutMs: 100, clientId: 'p', correlationId: 1 }),
    ).toEqual({
      answered: false,
      reason: 'no answer within 100 ms',
    });
    server?.close();
    // A refused connection answers at once; the timeout only bounds a machine too busy to say so.
    const closed = await probeBroker(`127.0.0.1:${port}`, {
      timeoutMs: 10_000,
      clientId: 'p',
      correlationId: 2,
    });
    expect(closed).toMatchObject({ answered: false, reason: expect.stringContaining('ECONNREFUSED') });
  });
});

describe('unprobedKafkaLink', () => {
  it('lets every call through and never says Kafka is lost', async () => {
    const link = unprobedKafkaLink();
    expect(link.up).toBe(true);
    expect(link.unreachable('publishing')).toBeUndefined();
    await expect(link.guard('publishing', async () => 7)).resolves.toBe(7);
    await expect(link.guard('publishing', () => Promise.reject(new Error('broker said no')))).rejects.toThrow(
      'broker said no',
    );
    link.onChange(() => undefined)();
    link.close();
  });
});
