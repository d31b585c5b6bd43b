// The built-in plugins, in tap order: the state store (docs/state.md) first, then the runtimes (docker, then swarm for the services on its engines),
// third-party plugins next (a third-party source may claim its own watch path before the built-in ones look), then the Git source, no-pull, the registry
// source, cooldown, signatures, release notes (its review tap runs at the `explain` stage, after the version is named, wherever it is listed), notifications (after any third-party plugin that adds a scheme), Home Assistant over MQTT
// (an observer, off without --mqtt-url), and last the HTTP API, which serves what the others provide. Each
// plugin declares its own options; the server resolves them (server/config) and hands each plugin its values.
import type { TidewatchPlugin } from '../core/index.js';
import { agentsPlugin } from '../plugins/agents/index.js';
import { attestationsPlugin } from '../plugins/attestations/index.js';
import { cooldownPlugin } from '../plugins/cooldown/index.js';
import { dockerPlugin } from '../plugins/docker/index.js';
import { gitPlugin } from '../plugins/git/index.js';
import { httpApiPlugin } from '../plugins/http-api/index.js';
import { mqttPlugin } from '../plugins/mqtt/index.js';
import { noPullPlugin } from '../plugins/no-pull/index.js';
import { notifyPlugin } from '../plugins/notify/index.js';
import { peoplePlugin } from '../plugins/people/index.js';
import { policiesPlugin } from '../plugins/policies/index.js';
import { registryPlugin } from '../plugins/registry/index.js';
import { rolloutsPlugin } from '../plugins/rollouts/index.js';
import { releaseNotesPlugin } from '../plugins/release-notes/index.js';
import { statePlugin } from '../plugins/state/index.js';
import { signaturesPlugin } from '../plugins/signatures/index.js';
import { swarmPlugin } from '../plugins/swarm/index.js';
import { webhooksPlugin } from '../plugins/webhooks/index.js';

export function builtinPlugins(thirdParty: readonly TidewatchPlugin<object>[] = []): TidewatchPlugin<object>[] {
  return [
    // First: every other plugin finds the state store (docs/state.md) when it is applied.
    statePlugin,
    // Agents that dial in (docs/fleet.md): AGENT_HOSTS, which the Docker runtime finds when it starts.
    agentsPlugin,
    dockerPlugin,
    swarmPlugin,
    ...thirdParty,
    gitPlugin,
    noPullPlugin,
    registryPlugin,
    cooldownPlugin,
    signaturesPlugin,
    attestationsPlugin,
    releaseNotesPlugin,
    // Windows and approvals (docs/policies.md): gates after cooldown and signatures, routes before the API.
    policiesPlugin,
    // Staged rollouts (docs/rollouts.md): a gate after the windows, routes before the API.
    rolloutsPlugin,
    notifyPlugin,
    mqttPlugin,
    webhooksPlugin,
    // Roles, personal tokens and single sign-on (docs/people.md): PEOPLE and its routes, before the API.
    peoplePlugin,
    httpApiPlugin,
  ] as TidewatchPlugin<object>[];
}
