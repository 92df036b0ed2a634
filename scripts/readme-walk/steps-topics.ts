// "Reading a topic": replay and kcat on the product's Kafka, reading what the HTTP API examples
// before them wrote (trial exp-1-t1 of experiment exp-1).
import { setTimeout as sleep } from 'node:timers/promises';
import { type Expect, judge, launch, type Step, sh, tail, verdict } from './walk.ts';

function reads(command: string, expect: Expect): Step {
  return {
    command,
    async run(walk) {
      return [judge(await sh(walk, command, { timeoutMs: 60_000 }), expect)];
    },
  };
}

/** `--follow` never ends by itself: it must print what the topic holds, keep reading, and end on Ctrl-C. */
const follow: Step = {
  command: 'npm run -s replay -- experiment.trial-status --follow',
  async run(walk, command) {
    const running = launch(walk, command);
    const printed = await running.waitFor((out) => out.includes('"key":"exp-1-t1"'), 30_000);
    await sleep(1_000);
    const stillReading = printed && running.alive();
    const ended = await running.stop('SIGINT', 10_000);
    const byCtrlC = ended.code === 0 || ended.code === 130 || ended.signal === 'SIGINT';
    const after = ended.stdout + ended.stderr;
    return [
      verdict(
        printed && stillReading && byCtrlC && !ended.timedOut,
        'prints the TrialStatusChanged of exp-1-t1 (SetTrialStatus above), keeps reading, ends on Ctrl-C (exit 0 or 130)',
        printed
          ? `printed it, ${stillReading ? 'kept reading' : 'ended by itself'}, then ${ended.code === null ? `ended by ${ended.signal}` : `exit ${ended.code}`} on SIGINT`
          : `no "key":"exp-1-t1"; output: ${tail(after) || '(none)'}`,
      ),
    ];
  },
};

export const TOPIC_STEPS: readonly Step[] = [
  reads('npm run -s replay -- experiment.observations --from-beginning', {
    prints: ['{"topic":"experiment.observations"', '"key":"exp-1-t1","eventType":"ObservationLogReported"'],
  }),
  reads(
    `npm run -s replay -- experiment.observations --from "$(date -u -d '1 hour ago' +%FT%TZ)" --until "$(date -u +%FT%TZ)"`,
    { prints: ['"key":"exp-1-t1","eventType":"ObservationLogReported"'] },
  ),
  reads('npm run -s replay -- experiment.observations --key exp-1-t1 --format csv', {
    prints: [
      'topic,partition,offset,timestamp,key,event_type,correlation_id,event',
      ',exp-1-t1,ObservationLogReported,',
    ],
    notPrints: [/^experiment\.observations,\d+,\d+,[^,]+,(?!exp-1-t1,)/m],
  }),
  follow,
  reads('kcat -b 127.0.0.1:9092 -C -t experiment.observations -o beginning -e -J', {
    prints: [
      '"topic":"experiment.observations"',
      '"key":"exp-1-t1"',
      '"event-type","ObservationLogReported"',
    ],
  }),
  // A product with no poison message has no dead letters: the command reads the empty topic and ends.
  reads("kcat -b 127.0.0.1:9092 -C -t experiment.observations.dlq -o beginning -e -f '%h\\n'", {
    prints: ['Reached end of topic experiment.observations.dlq'],
  }),
];
