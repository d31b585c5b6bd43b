// The real engine client, counting the calls discovery makes: container and image lists, and which images
// it inspects (by the id or name asked for). `hide` drops one image from the image list's answer.
import type { EngineClient } from '../../plugins/docker/engine/client.js';

export interface EngineCalls {
  lists: number;
  readonly inspects: string[];
  /** 'containers' and 'images' in the order the lists were asked for. */
  readonly order: string[];
}

export function countingEngine(client: EngineClient, hide?: string): { client: EngineClient; calls: EngineCalls } {
  const calls: EngineCalls = { lists: 0, inspects: [], order: [] };
  const listContainers: EngineClient['listContainers'] = (options) => {
    calls.order.push('containers');
    return client.listContainers(options);
  };
  const listImages: EngineClient['listImages'] = async (options) => {
    calls.lists++;
    calls.order.push('images');
    return (await client.listImages(options)).filter((image) => image.Id !== hide);
  };
  const getImage: EngineClient['getImage'] = (name) => {
    const handle = client.getImage(name);
    return {
      ...handle,
      inspect: (options) => {
        calls.inspects.push(name);
        return handle.inspect(options);
      },
    };
  };
  const proxy = new Proxy(client, {
    get: (target, key) => {
      if (key === 'listImages') return listImages;
      if (key === 'listContainers') return listContainers;
      if (key === 'getImage') return getImage;
      const value: unknown = Reflect.get(target, key, target);
      // The client's methods reach its private transport: they run on the client itself.
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
  return { client: proxy, calls };
}
