// Discovery from the container list: the facts an inspect used to give, read from list entries
// (docs/performance.md#the-check-pipeline). The integration tests prove the same against the real engine.
import type Docker from 'dockerode';
import t from 'tap';
import { listedContainers } from '../../../plugins/docker/discovery.js';

function entry(id: string, names: string[], extra: Partial<Docker.ContainerInfo> = {}): Docker.ContainerInfo {
  return {
    Id: id,
    Names: names,
    Image: 'registry.local/app:1',
    ImageID: 'sha256:aaa',
    Command: '',
    Created: 0,
    Ports: [],
    Labels: { a: 'b' },
    State: 'running',
    Status: 'Up',
    HostConfig: { NetworkMode: 'none' },
    NetworkSettings: { Networks: {} },
    Mounts: [],
    ...extra,
  };
}

t.test('links are rebuilt from the aliases in the linked containers\' names', async (t) => {
  const listed = listedContainers([
    entry('1', ['/web']),
    // db is linked by web as `db` and by worker as `database`; the list shows those aliases as names.
    entry('2', ['/web/db', '/db', '/worker/database']),
    entry('3', ['/worker'], { HostConfig: { NetworkMode: 'container:web' } }),
  ]);
  t.same(listed.map((c) => c.name), ['web', 'db', 'worker'], 'the own name is the one-segment name, wherever it is');
  t.same(listed[0]?.links, ['/db:/web/db']);
  t.same(listed[1]?.links, []);
  t.same(listed[2]?.links, ['/db:/worker/database']);
  t.equal(listed[2]?.networkMode, 'container:web');
  t.same(listed[0]?.labels, { a: 'b' });
  t.equal(listed[0]?.state, 'running');
});

t.test('an entry showing its image id for the image name needs an inspect for the name', async (t) => {
  const [moved, tagged] = listedContainers([
    entry('1', ['/old'], { Image: 'sha256:aaa', ImageID: 'sha256:aaa' }),
    entry('2', ['/new']),
  ]);
  t.equal(moved?.imageNameHidden, true);
  t.equal(tagged?.imageNameHidden, false);
  t.equal(tagged?.configImage, 'registry.local/app:1');
});
