// Creates every topic of the product (and its dead-letter topic) that does not exist yet.
// `npm start` does this itself; docker-compose runs it as a one-shot service.
import { createKafka, kafkaSettings } from '../shared/bus/kafka.ts';
import { dlqOf, ensureTopics, TOPICS } from '../shared/bus/topics.ts';
import { createLogger } from '../shared/logger.ts';
import { readSettings } from '../shared/settings.ts';

const settings = readSettings(kafkaSettings, process.env);
const logger = createLogger({ name: 'declare-topics', level: 'info' });
const admin = createKafka({
  brokers: settings.kafkaBrokers,
  clientId: settings.kafkaClientId,
  logger,
}).admin();
await admin.connect();
const topics = Object.values(TOPICS);
await ensureTopics(admin, [...topics, ...topics.map(dlqOf)], logger);
await admin.disconnect();
