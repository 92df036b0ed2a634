import { createKafkajsClient } from './kafkajs.ts';
import { createPlatformaticClient } from './platformatic.ts';
import type { ClientOptions, KafkaClient } from './types.ts';

export { KAFKA_CLIENTS, type KafkaClientName } from './names.ts';
export type * from './types.ts';

import type { KafkaClientName } from './names.ts';

export function openKafkaClient(name: KafkaClientName, options: ClientOptions): KafkaClient {
  switch (name) {
    case 'kafkajs':
      return createKafkajsClient(options);
    case 'platformatic':
      return createPlatformaticClient(options);
  }
}
