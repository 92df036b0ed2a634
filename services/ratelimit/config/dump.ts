import type { DescriptorNode } from './types.ts';

/**
 * The `/rlconfig` body: one line per configured limit, domains in load order and descriptors in
 * config order, depth first (the reference iterates Go maps, so its order is random). A descriptor
 * with several limits, or one beyond the reference's, has a line per limit naming its window and algorithm.
 */
export function dumpDomains(domains: ReadonlyMap<string, DescriptorNode>): string {
  let text = '';
  const visit = (node: DescriptorNode): void => {
    const { limit } = node;
    if (limit?.limits !== undefined) {
      for (const spec of limit.limits) {
        const burst = spec.algorithm === 'token_bucket' ? ` burst=${spec.burst}` : '';
        text += `${limit.fullKey}: unit=${spec.unit} unit_multiplier=${spec.unitMultiplier} requests_per_unit=${spec.requestsPerUnit} algorithm=${spec.algorithm}${burst}, shadow_mode: ${limit.shadowMode}, quota_mode: ${limit.quotaMode}\n`;
      }
    } else if (limit !== undefined) {
      text += `${limit.fullKey}: unit=${limit.unit} requests_per_unit=${limit.requestsPerUnit}, shadow_mode: ${limit.shadowMode}, quota_mode: ${limit.quotaMode}\n`;
    }
    for (const child of node.children.values()) visit(child);
  };
  for (const domain of domains.values()) visit(domain);
  return text;
}
