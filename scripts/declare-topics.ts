// Creates every topic of the product (and its dead-letter topic) that does not exist yet.
// `npm start` does this itself; docker-compose runs it as a one-shot service.
import { createBus, dlqOf, kafkaSettings, TOPICS } from '../shared/bus/index.ts';
import { createLogger } from '../shared/logger.ts';
import { readSettings } from '../shared/settings.ts';

const settings = readSettings(kafkaSettings, process.env);
const bus = createBus({
  brokers: settings.kafkaBrokers,
  clientId: settings.kafkaClientId,
  client: settings.kafkaClient,
  logger: createLogger({ name: 'declare-topics', level: 'info' }),
});
const topics = Object.values(TOPICS);
try {
  await bus.ensureTopics([...topics, ...topics.map(dlqOf)]);
} finally {
  await bus.close();
}
