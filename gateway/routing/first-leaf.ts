/**
 * The one target a call without routing takes (a models list, a pass-through): the config's
 * first target at every level, with the settings it inherits on the way down.
 */
import type { ConfigNode } from './config-node.js';
import { inherit, rootSettings } from './inheritance.js';

export function firstLeaf(config: ConfigNode): ConfigNode {
  let node = config;
  let settings = rootSettings(config);
  while (node.targets?.length) {
    node = node.targets[0]!;
    settings = inherit(settings, node);
  }
  return settings;
}
