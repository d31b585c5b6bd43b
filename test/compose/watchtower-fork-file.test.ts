// A Watchtower compose file of 2026 (the maintained fork's options) switched to Tidewatch by its image, proven
// with the real docker-compose on the test environment's second engine, whose daemon has registry mirrors
// (docs/watchtower-fork.md, docs/registry-mirrors.md). The file uses the fork's four selection filters and a
// Docker Hub image served by the engine's mirror; every app container has a newer image waiting, and one update
// replaces exactly those the fork would: the ones every filter lets through, the Hub one found on the mirror.
//
// The same file carries the fork's copy-file label on `picked`, naming the file Compose wrote in from a `configs:`
// entry with `content:` (docs/watchtower-fork.md#the-copy-file-label): the replacement has it again, owner and mode
// kept. And a signal:// notification URL with the report (docs/notifications.md): a loopback stand-in for
// signal-cli-rest-api gets the fork's POST /v2/send naming the updated containers.
//
// `configs: content:` needs Compose v2 (docs/compose.md), which reads DOCKER_HOST, DOCKER_TLS_VERIFY and
// DOCKER_CERT_PATH as the engine's own CLI does, so the whole file runs with it.
//
// What cannot run here as a user writes it: the engine has no bridge, so Tidewatch runs on the host network and
// reaches the engine over its loopback TLS port (DOCKER_HOST, DOCKER_TLS_VERIFY, DOCKER_CERT_PATH, as Watchtower
// reads them); Docker Hub's names point to loopback (`extra_hosts`), so nothing leaves the machine.
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { stringify } from 'yaml'
import { CaptureServer } from '../helpers/capture-server.js'
import { compose2Path } from '../helpers/compose.js'
import { secondDocker, waitFor } from '../helpers/env.js'
import { pushImage, removeContainers, removeImages, testPrefix } from '../helpers/images.js'
import { freePort } from '../helpers/loopback-server.js'
import { mirrorRegistries, requireMirrors } from '../helpers/mirror-registries.js'
import { QUICK_STOP_CMD } from '../helpers/scenarios.js'
import { call, REPO_ROOT } from '../helpers/service.js'
import { dockerCli, tidewatchImage } from '../helpers/tidewatch-image.js'

const run = promisify(execFile)
const TOKEN = 'compose-fork-file-token-0123456789'
const COPY_FILE = { path: '/etc/picked/conf.yml', content: 'listen: 0.0.0.0:8080\nworkers: 3\n', uid: 1234, gid: 2345, mode: 0o640 }
const SIGNAL = { number: '+15550001111', recipients: ['+15550002222', '+15550003333'] }
/** App services: whether the fork would update each, and why not. */
const APPS = {
  picked: { labels: { env: 'prod' }, updated: true },
  hubapp: { labels: { env: 'prod' }, updated: true }, // a Docker Hub name, served by the engine's mirror
  gameserver: { labels: { env: 'prod', 'game-server': 'yes' }, updated: false }, // --disable-containers-by-label
  skipped: { labels: { env: 'prod' }, updated: false }, // --skip-image-names
  unwatched: { labels: { env: 'prod' }, updated: false }, // not in --monitor-image-names
  unlabelled: { labels: {}, updated: false }, // not in --enable-containers-by-label
} as const
type App = keyof typeof APPS
const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

t.test('a fork compose file with the four filters and a mirrored Hub image: the fork\'s containers are updated', { timeout: 900_000 }, async (t) => {
  const env = await requireMirrors(t)
  if (!env) return
  const compose2 = await compose2Path(t, env)
  if (!compose2) return
  const engine = secondDocker(env)
  const project = testPrefix('forkfile')
  const dir = await mkdtemp(join(tmpdir(), 'tw-forkfile-'))
  const registries = await mirrorRegistries(t, env)
  await registries.plain.start()
  const port = await freePort()
  const signal = await new CaptureServer().start()
  signal.answer = () => ({ status: 201, body: { timestamp: 1 } })
  const engineEnv = { ...process.env, DOCKER_HOST: env.secondDockerHost, DOCKER_TLS_VERIFY: '1', DOCKER_CERT_PATH: env.secondCertPath }
  const compose = (args: string[]) =>
    run(compose2, ['--ansi', 'never', '-p', project, '-f', join(dir, 'docker-compose.yml'), ...args], { cwd: REPO_ROOT, timeout: 300_000, env: engineEnv })
  t.teardown(async () => {
    await signal.close()
    if (!t.passing()) t.comment(await compose(['logs', '--tail', '60', 'watchtower']).then((o) => o.stdout, () => 'no logs'))
    await compose(['down', '--remove-orphans']).catch(() => undefined)
    await removeContainers(engine, project)
    await removeImages(engine, project)
    await rm(dir, { recursive: true, force: true })
  })

  // Tidewatch's image in the local registry, as a user's would be in theirs; the second engine pulls it.
  const tidewatchRef = `${env.registry}/${project}/tidewatch:latest`
  await dockerCli(env, ['tag', await tidewatchImage(env), tidewatchRef])
  await dockerCli(env, ['push', '-q', tidewatchRef])
  const push = (app: App, marker: string) =>
    app === 'hubapp'
      ? pushImage({ registry: registries.plain.address, repo: `library/${project}-hubapp`, tag: '1', marker, cmd: QUICK_STOP_CMD })
      : pushImage({ registry: env.registry, repo: `${project}/${app}`, marker, cmd: QUICK_STOP_CMD })
  const imageOf = (app: App) => (app === 'hubapp' ? `${project}-hubapp:1` : `${env.registry}/${project}/${app}:latest`)
  const apps = Object.keys(APPS) as App[]
  for (const app of apps) await push(app, `${app} v1`)

  const scope = { 'com.centurylinklabs.watchtower.scope': project }
  const { path: target, uid, gid, mode } = COPY_FILE
  const appService = (app: App) => ({
    image: imageOf(app),
    network_mode: 'none',
    labels: { ...scope, ...APPS[app].labels, ...(app === 'picked' ? { 'com.centurylinklabs.watchtower.copy-file': target } : {}) },
    ...(app === 'picked' ? { configs: [{ source: 'picked_conf', target, uid: String(uid), gid: String(gid), mode }] } : {}),
  })
  const FORK_FILE = {
    services: {
      watchtower: {
        image: tidewatchRef, // was: nickfedor/watchtower
        network_mode: 'host',
        volumes: [`${env.secondCertPath}:/certs:ro`],
        extra_hosts: ['registry-1.docker.io:127.0.0.1', 'auth.docker.io:127.0.0.1', 'index.docker.io:127.0.0.1'],
        labels: scope,
        environment: {
          DOCKER_HOST: env.secondDockerHost,
          DOCKER_TLS_VERIFY: '1',
          DOCKER_CERT_PATH: '/certs',
          WATCHTOWER_SCOPE: project,
          WATCHTOWER_HTTP_API_UPDATE: 'true',
          WATCHTOWER_HTTP_API_TOKEN: TOKEN,
          WATCHTOWER_MONITOR_IMAGE_NAMES: `.*/(picked|gameserver|skipped|unlabelled):.*,${project}-hubapp:.*`,
          WATCHTOWER_SKIP_IMAGE_NAMES: '.*/skipped:latest',
          WATCHTOWER_ENABLE_CONTAINERS_BY_LABEL: 'env=prod',
          WATCHTOWER_DISABLE_CONTAINERS_BY_LABEL: 'game-server=',
          TIDEWATCH_HTTP_API_HOST: '127.0.0.1',
          TIDEWATCH_HTTP_API_PORT: String(port),
          WATCHTOWER_NOTIFICATION_URL: `signal://${signal.host}/${SIGNAL.number}/${SIGNAL.recipients.join('/')}?disabletls=yes`,
          WATCHTOWER_NOTIFICATION_REPORT: 'true',
        },
      },
      ...Object.fromEntries(apps.map((app) => [app, appService(app)])),
    },
    configs: { picked_conf: { content: COPY_FILE.content } },
  }
  await writeFile(join(dir, 'docker-compose.yml'), stringify(FORK_FILE))
  await compose(['up', '-d'])
  const url = `http://127.0.0.1:${port}`
  await waitFor(async () => ((await call(`${url}/v1/update`, { method: 'GET', token: TOKEN }).catch(() => undefined)) ? true : undefined), 60_000, 250)

  const containers = async (): Promise<Record<App, { id: string; image: string; name: string }>> => {
    const out = {} as Record<App, { id: string; image: string; name: string }>
    for (const app of apps) {
      const id = (await compose(['ps', '-q', app])).stdout.trim()
      const info = await engine.getContainer(id).inspect()
      out[app] = { id: info.Id, image: info.Image, name: info.Name }
    }
    return out
  }
  // Owner, mode and content, read by the engine's own CLI on the second engine; a missing file reads as stat's error.
  const configFile = (id: string) =>
    run('docker', ['exec', id, 'sh', '-c', `stat -c '%u:%g:%a' ${target} && cat ${target}`], { env: engineEnv, timeout: 60_000 }).then(
      (out) => out.stdout,
      (err: { stderr?: string }) => `failed: ${err.stderr ?? String(err)}`,
    )
  const before = await containers()
  const injected = await configFile(before.picked.id)
  t.equal(injected, `${uid}:${gid}:${mode.toString(8)}\n${COPY_FILE.content}`, 'Compose v2 wrote the config into picked')
  const v2 = Object.fromEntries(await Promise.all(apps.map(async (app) => [app, await push(app, `${app} v2`)] as const))) as unknown as Record<App, { configDigest: string }>

  const res = await call(`${url}/v1/update`, { method: 'POST', token: TOKEN })
  t.equal(res.status, 200, res.text)
  t.match(res.body, { summary: { updated: 2, failed: 0 } }, res.text)
  const after = await containers()
  for (const app of apps) {
    if (APPS[app].updated) {
      t.not(after[app].id, before[app].id, `${app}: replaced`)
      t.equal(after[app].image, v2[app].configDigest, `${app}: on its new image`)
    } else {
      t.same(after[app], before[app], `${app}: untouched, as the fork leaves it`)
    }
  }
  t.equal(await configFile(after.picked.id), injected, 'copy-file: the replacement has the config, content, owner and mode kept')

  // The notifier sends off the run's path: wait for the update run's message (a start-up one may come first).
  const sent = await waitFor(() => signal.requests.find((r) => /\bUpdated\b/.test(JSON.stringify(r.json ?? ''))), 30_000, 100)
  t.equal(sent.method, 'POST')
  t.equal(sent.path, '/v2/send')
  const { message, ...addressed } = sent.json as { message: string; number: string; recipients: string[] }
  t.same(addressed, SIGNAL, 'signal-cli-rest-api\'s request: the sender and recipients of the URL, no other field')
  t.type(message, 'string')
  t.match(message, /\b2 Updated, 0 Restarted, 0 Failed\b/, 'the report of the run')
  for (const app of apps) {
    // The fork's .Name has the engine's leading `/` (docs/notifications.md); Tidewatch's report drops it today.
    const name = literally(after[app].name.replace(/^\//, ''))
    const line = new RegExp(`^- /?${name} \\([^)]+\\): \\w+ updated to \\w+$`, 'm')
    if (APPS[app].updated) t.match(message, line, `the message names ${app} as updated`)
    else t.notMatch(message, line, `the message does not name ${app} as updated`)
  }
})
