// Creates every topic of the product (and its dead-letter topic) that does not exist yet: the
// experiment service's under KAFKA_TOPIC_PREFIX, as the service names them.
// `npm start` does this itself; docker-compose runs it as a one-shot service.
import { experimentTopics } from '../services/experiment/common/bus-names.ts';
import { createBus, dlqOf, kafkaSettings, TOPICS } from '../shared/bus/index.ts';
import { topicPrefix } from '../shared/bus/kafka-settings.ts';
import { createLogger } from '../shared/logger.ts';
import { readSettings, SettingsError } from '../shared/settings.ts';

let settings: ReturnType<typeof readSettings<typeof spec>>;
const spec = { ...kafkaSettings, kafkaTopicPrefix: topicPrefix('KAFKA_TOPIC_PREFIX') };
try {
  settings = readSettings(spec, process.env);
} catch (error) {
  if (!(error instanceof SettingsError)) throw error;
  process.stderr.write(`declare-topics: ${error.message}\n`);
  process.exit(2);
}
const bus = createBus({
  brokers: settings.kafkaBrokers,
  clientId: settings.kafkaClientId,
  client: settings.kafkaClient,
  logger: createLogger({ name: 'declare-topics', level: 'info' }),
});
const topics = [
  ...Object.values(experimentTopics(settings.kafkaTopicPrefix)),
  TOPICS.ratelimitConfig,
  TOPICS.upgradeProgress,
];
try {
  await bus.ensureTopics([...topics, ...topics.map(dlqOf)]);
} finally {
  await bus.close();
}
