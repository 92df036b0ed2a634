import { Counter, Gauge, type Registry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import { AppError } from '../../../shared/errors.ts';
import { createMetricsRegistry, type MetricsServer, startMetricsServer } from '../../../shared/metrics.ts';
import { memoryLogger } from '../../helpers/memory-logger.ts';

interface LogLine {
  level: string;
  msg: string;
  err?: { message?: string };
}

describe('createMetricsRegistry', () => {
  it('collects default process and Node.js metrics', async () => {
    const registry = createMetricsRegistry('svc');
    const names = (await registry.getMetricsAsJSON()).map((m) => m.name);
    expect(names).toEqual(
      expect.arrayContaining([
        'process_cpu_user_seconds_total',
        'process_start_time_seconds',
        'nodejs_eventloop_lag_seconds',
        'nodejs_heap_size_used_bytes',
        'nodejs_version_info',
      ]),
    );
  });

  it('labels every series with service="svc"', async () => {
    const registry = createMetricsRegistry('svc');
    new Counter({ name: 'jobs_total', help: 'Jobs.', labelNames: ['kind'], registers: [registry] })
      .labels('a')
      .inc();
    const text = await registry.metrics();
    expect(text).toMatch(/^process_cpu_user_seconds_total\{service="svc"\} \d/m);
    expect(text).toContain('jobs_total{kind="a",service="svc"} 1');
    const series = text.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
    expect(series.length).toBeGreaterThan(10);
    for (const line of series) expect(line).toContain('service="svc"');
  });

  it('gives each service its own registry and label', async () => {
    const a = createMetricsRegistry('alpha');
    const b = createMetricsRegistry('beta');
    expect(a).not.toBe(b);
    new Counter({ name: 'only_in_alpha_total', help: 'x', registers: [a] }).inc();
    const [textA, textB] = await Promise.all([a.metrics(), b.metrics()]);
    expect(textA).toContain('service="alpha"');
    expect(textA).not.toContain('service="beta"');
    expect(textB).toContain('service="beta"');
    expect(textB).not.toContain('service="alpha"');
    expect(textA).toContain('only_in_alpha_total{service="alpha"} 1');
    expect(textB).not.toContain('only_in_alpha_total');
  });
});

describe('startMetricsServer', () => {
  const servers: MetricsServer[] = [];

  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.stop()));
  });

  async function start(registry: Registry = createMetricsRegistry('svc')) {
    const { logger, lines } = memoryLogger<LogLine>();
    const server = await startMetricsServer({ host: '127.0.0.1', port: 0, registry, logger });
    servers.push(server);
    return { server, registry, lines, url: (path: string) => `http://127.0.0.1:${server.port}${path}` };
  }

  it('listens on an ephemeral port when given port 0', async () => {
    const { server } = await start();
    expect(Number.isInteger(server.port)).toBe(true);
    expect(server.port).toBeGreaterThan(0);
  });

  it.each(['/metrics', '/metrics?name=x'])(
    'GET %s serves the registry in the Prometheus format',
    async (path) => {
      const registry = createMetricsRegistry('svc');
      const counter = new Counter({
        name: 'orders_total',
        help: 'Orders seen.',
        labelNames: ['route'],
        registers: [registry],
      });
      counter.labels('x').inc(3);
      const { url } = await start(registry);
      const response = await fetch(url(path));
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe(registry.contentType);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      const body = await response.text();
      expect(body).toContain('# HELP orders_total Orders seen.');
      expect(body).toContain('# TYPE orders_total counter');
      expect(body).toContain('orders_total{route="x",service="svc"} 3');
      expect(body).toContain('process_cpu_user_seconds_total{service="svc"}');
    },
  );

  it('serves current values on each request', async () => {
    const registry = createMetricsRegistry('svc');
    const counter = new Counter({ name: 'ticks_total', help: 'Ticks.', registers: [registry] });
    const { url } = await start(registry);
    counter.inc();
    expect(await (await fetch(url('/metrics'))).text()).toContain('ticks_total{service="svc"} 1');
    counter.inc(4);
    expect(await (await fetch(url('/metrics'))).text()).toContain('ticks_total{service="svc"} 5');
  });

  it.each([
    { method: 'GET', path: '/' },
    { method: 'GET', path: '/other' },
    { method: 'GET', path: '/metrics/extra' },
    { method: 'GET', path: '/metricsx' },
    { method: 'POST', path: '/metrics' },
    { method: 'PUT', path: '/metrics' },
  ])('$method $path is 404', async ({ method, path }) => {
    const { url } = await start();
    const response = await fetch(url(path), { method });
    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toBe('text/plain');
    expect(await response.text()).toBe('not found: try GET /metrics\n');
  });

  it('answers 500 and logs when collecting fails', async () => {
    const registry = createMetricsRegistry('svc');
    new Gauge({
      name: 'broken_gauge',
      help: 'Throws when collected.',
      registers: [registry],
      collect() {
        throw new Error('collector exploded');
      },
    });
    const { url, lines } = await start(registry);
    const response = await fetch(url('/metrics'));
    expect(response.status).toBe(500);
    expect(await response.text()).toBe('collecting metrics failed\n');
    expect(lines).toEqual([
      expect.objectContaining({
        level: 'error',
        msg: 'collecting metrics failed',
        err: expect.objectContaining({ message: 'collector exploded' }),
      }),
    ]);
  });

  it('stop() closes the server, even with a kept-alive connection', async () => {
    const { logger } = memoryLogger<LogLine>();
    const server = await startMetricsServer({
      host: '127.0.0.1',
      port: 0,
      registry: createMetricsRegistry('svc'),
      logger,
    });
    const url = `http://127.0.0.1:${server.port}/metrics`;
    const response = await fetch(url);
    expect(response.status).toBe(200);
    await response.text();
    await server.stop();
    await expect(fetch(url)).rejects.toThrow();
  });

  it('stop() does not wait for a request still being answered', async () => {
    const registry = createMetricsRegistry('svc');
    let collecting: () => void = () => {};
    const collectStarted = new Promise<void>((resolve) => {
      collecting = resolve;
    });
    let release: () => void = () => {};
    const released = new Promise<void>((resolve) => {
      release = resolve;
    });
    new Gauge({
      name: 'slow_gauge',
      help: 'Collects only when released.',
      registers: [registry],
      async collect() {
        collecting();
        await released;
      },
    });
    const { logger } = memoryLogger<LogLine>();
    const server = await startMetricsServer({ host: '127.0.0.1', port: 0, registry, logger });
    const inFlight = fetch(`http://127.0.0.1:${server.port}/metrics`);
    inFlight.catch(() => {});
    await collectStarted;
    try {
      await server.stop();
      await expect(inFlight).rejects.toThrow();
    } finally {
      release();
    }
  });

  it('rejects with UNAVAILABLE when the port is taken', async () => {
    const { server } = await start();
    const { logger } = memoryLogger<LogLine>();
    const attempt = startMetricsServer({
      host: '127.0.0.1',
      port: server.port,
      registry: createMetricsRegistry('svc'),
      logger,
    });
    await expect(attempt).rejects.toBeInstanceOf(AppError);
    await expect(attempt).rejects.toMatchObject({
      code: 'UNAVAILABLE',
      message: expect.stringMatching(
        new RegExp(`^metrics server: cannot listen on 127\\.0\\.0\\.1:${server.port}: .*EADDRINUSE`),
      ),
    });
  });
});
