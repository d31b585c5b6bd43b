// A minimal SSE reader over fetch, for assertions on the raw frames (retry, id, comments) that an
// EventSource hides.
export interface RawStream {
  readonly response: Response;
  /** Everything received so far. */
  text(): string;
  /** Waits until the received text satisfies `check`. */
  until(check: (text: string) => boolean, ms?: number): Promise<string>;
  close(): void;
}

export interface Frame {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  comment?: string;
}

export function parseFrames(text: string): Frame[] {
  return text
    .split('\n\n')
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const frame: Frame = {};
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) frame.comment = line.slice(1).trim();
        const match = /^(id|event|data|retry): ?(.*)$/.exec(line);
        if (match) frame[match[1] as 'id' | 'event' | 'data' | 'retry'] = match[2] as string;
      }
      return frame;
    });
}

export async function openStream(url: string, headers: Record<string, string> = {}): Promise<RawStream> {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  let received = '';
  let waiters: (() => void)[] = [];
  if (response.ok && response.body) {
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    void (async () => {
      try {
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          received += decoder.decode(value, { stream: true });
          for (const wake of waiters) wake();
          waiters = [];
        }
      } catch {
        // aborted by close()
      }
    })();
  }
  return {
    response,
    text: () => received,
    async until(check, ms = 5000) {
      const deadline = Date.now() + ms;
      while (!check(received)) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`stream condition not reached; received:\n${received.slice(-300)}`);
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, Math.min(left, 100));
          waiters.push(() => {
            clearTimeout(timer);
            resolve();
          });
        });
      }
      return received;
    },
    close: () => controller.abort(),
  };
}

/** Reads a stream frame by frame, keeping only ids (for large volumes, in linear time). */
export async function countFrames(url: string, headers: Record<string, string> = {}) {
  const controller = new AbortController();
  const response = await fetch(url, { headers, signal: controller.signal });
  const ids: number[] = [];
  let rest = '';
  const reader = response.body?.getReader();
  const decoder = new TextDecoder();
  const done = (async () => {
    try {
      for (;;) {
        const chunk = await reader?.read();
        if (!chunk || chunk.done) break;
        rest += decoder.decode(chunk.value, { stream: true });
        let end = rest.indexOf('\n\n');
        let start = 0;
        while (end !== -1) {
          const frame = rest.slice(start, end);
          if (frame.startsWith('id: ')) ids.push(Number(frame.slice(4, frame.indexOf('\n'))));
          start = end + 2;
          end = rest.indexOf('\n\n', start);
        }
        rest = rest.slice(start);
      }
    } catch {
      // aborted
    }
  })();
  return { response, ids, close: () => controller.abort(), done };
}
