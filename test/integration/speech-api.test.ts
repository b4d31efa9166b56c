import OpenAI from 'openai';
import { fakeSpeechAudio } from '../support/fake-upstream/openai-speech-wire.js';
import type { FakeUpstream } from '../support/fake-upstream/fake-upstream.js';
import { startOpenAiChannel, type OpenAiChannelSetup } from '../support/openai-channel-setup.js';
import type { TestGateway } from '../support/test-gateway.js';
import { waitFor } from '../support/wait-for.js';
import { GENEROUS_TIMEOUTS } from '../support/channel-timeouts.js';

let upstream: FakeUpstream;
let gateway: TestGateway;
let client: OpenAI;
let key: string;

let setup: OpenAiChannelSetup;

beforeAll(async () => {
  setup = await startOpenAiChannel(
    { wire: 'openai-speech' },
    {
      apiKey: 'sk-upstream-secret-value-0123456789',
      models: ['tts-test'],
      modelMap: { 'tts-test': 'upstream-tts' },
      timeouts: GENEROUS_TIMEOUTS,
    },
  );
  ({ upstream, gateway, client, key } = setup);
});

afterAll(async () => {
  await setup?.close();
});

const speechError = async (body: Record<string, unknown>) => {
  const result = await gateway.request('POST', '/v1/audio/speech', {
    key,
    body: { model: 'demo-1', input: 'hello', voice: 'alloy', response_format: 'wav', ...body },
  });
  return result;
};

describe('POST /v1/audio/speech on an OpenAI-compatible channel', () => {
  it('streams the upstream audio byte for byte, as audio/mpeg by default', async () => {
    const response = await client.audio.speech.create({ model: 'tts-test', input: 'Hello there.', voice: 'nova' });

    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('audio/mpeg');
    const bytes = Buffer.from(await response.arrayBuffer());
    expect(bytes.length).toBe(fakeSpeechAudio.length);
    expect(bytes.equals(fakeSpeechAudio)).toBe(true);
  });

  it('sends the upstream its model name and the client fields', async () => {
    await (
      await client.audio.speech.create({
        model: 'tts-test',
        input: 'Hi',
        voice: 'echo',
        response_format: 'opus',
        speed: 1.5,
      })
    ).arrayBuffer();

    const sent = (await upstream.receivedRequests()).at(-1)!;
    expect(sent.path).toBe('/v1/audio/speech');
    expect(sent.headers.authorization).toBe('Bearer sk-upstream-secret-value-0123456789');
    expect(sent.body).toEqual({
      model: 'upstream-tts',
      input: 'Hi',
      voice: 'echo',
      response_format: 'opus',
      speed: 1.5,
    });
  });

  it('relays an upstream refusal before any audio as an error envelope', async () => {
    await upstream.inject({
      kind: 'status',
      status: 400,
      body: { error: { message: 'bad voice for model', type: 'invalid_request_error', param: 'voice', code: null } },
    });

    const failure = await client.audio.speech
      .create({ model: 'tts-test', input: 'Hi', voice: 'echo' })
      .catch((error: unknown) => error);

    expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
    expect((failure as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('voice');
  });

  it('closes the upstream request when the client goes away mid-audio', async () => {
    await upstream.inject({ kind: 'slow-stream', gapMs: 100 });
    const controller = new AbortController();
    const response = await fetch(`${gateway.url}/v1/audio/speech`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'tts-test', input: 'Hi', voice: 'echo' }),
      signal: controller.signal,
    });
    const reader = response.body!.getReader();
    await reader.read();
    const before = await upstream.abortedCount();
    controller.abort();

    await waitFor(async () => (await upstream.abortedCount()) !== before, 3000);
    expect(await upstream.abortedCount()).toBe(before + 1);
  });
});

describe('POST /v1/audio/speech on the demo channel', () => {
  it('answers real WAV audio: 24 kHz, 16-bit, mono, longer for a longer input', async () => {
    const short = Buffer.from(
      await (
        await client.audio.speech.create({ model: 'demo-1', input: 'Hi', voice: 'alloy', response_format: 'wav' })
      ).arrayBuffer(),
    );
    const long = await client.audio.speech.create({
      model: 'demo-1',
      input: 'A much longer sentence to speak.',
      voice: 'alloy',
      response_format: 'wav',
    });
    const longBytes = Buffer.from(await long.arrayBuffer());

    expect(long.headers.get('content-type')).toBe('audio/wav');
    expect(short.subarray(0, 4).toString('ascii')).toBe('RIFF');
    expect(short.subarray(8, 12).toString('ascii')).toBe('WAVE');
    expect(short.readUInt32LE(24)).toBe(24_000);
    expect(short.readUInt16LE(34)).toBe(16);
    expect(short.readUInt32LE(40)).toBe(short.length - 44);
    expect(longBytes.length).toBeGreaterThan(short.length);
  });

  it('answers raw PCM as audio/pcm, shorter at a higher speed', async () => {
    const normal = await client.audio.speech.create({
      model: 'demo-1',
      input: 'Hello',
      voice: 'onyx',
      response_format: 'pcm',
    });
    const fast = await client.audio.speech.create({
      model: 'demo-1',
      input: 'Hello',
      voice: 'onyx',
      response_format: 'pcm',
      speed: 2,
    });

    expect(normal.headers.get('content-type')).toBe('audio/pcm');
    const normalBytes = (await normal.arrayBuffer()).byteLength;
    expect(normalBytes % 2).toBe(0);
    expect((await fast.arrayBuffer()).byteLength).toBeCloseTo(normalBytes / 2, -2);
  });

  it('answers a clear 400 naming response_format for a format it cannot encode (mp3 by default)', async () => {
    const result = await gateway.request('POST', '/v1/audio/speech', {
      key,
      body: { model: 'demo-1', input: 'hello', voice: 'alloy' },
    });

    expect(result.status).toBe(400);
    expect(result.body.error).toMatchObject({ type: 'invalid_request_error', param: 'response_format' });
    expect(result.body.error.message).toContain('wav');
  });
});

describe('POST /v1/audio/speech limits (spec: input ≤ 4096, speed 0.25–4, voice and format enums)', () => {
  it('accepts exactly 4096 characters and the speed bounds 0.25 and 4', async () => {
    expect((await speechError({ input: 'a'.repeat(4096) })).status).toBe(200);
    expect((await speechError({ speed: 0.25 })).status).toBe(200);
    expect((await speechError({ speed: 4 })).status).toBe(200);
  });

  it.each([
    ['input of 4097 characters', { input: 'a'.repeat(4097) }, 'input', 'invalid_value'],
    ['an empty input', { input: '' }, 'input', 'invalid_value'],
    ['a missing input', { input: undefined }, 'input', 'missing_required'],
    ['speed 0.2', { speed: 0.2 }, 'speed', 'invalid_value'],
    ['speed 4.1', { speed: 4.1 }, 'speed', 'invalid_value'],
    ['speed as a string', { speed: 'fast' }, 'speed', 'invalid_value'],
    ['an unknown voice', { voice: 'robot' }, 'voice', 'invalid_value'],
    ['a missing voice', { voice: undefined }, 'voice', 'missing_required'],
    ['an unknown format', { response_format: 'ogg' }, 'response_format', 'invalid_value'],
    ['a missing model', { model: undefined }, 'model', 'missing_required'],
  ])('rejects %s with a 400 naming the field', async (_name, body, param, code) => {
    const result = await speechError(body);

    expect(result.status).toBe(400);
    expect(result.headers.get('content-type')).toContain('application/json');
    expect(result.body.error).toMatchObject({ type: 'invalid_request_error', param, code });
  });

  it('is a 400 through the SDK too', async () => {
    const failure = await client.audio.speech
      .create({ model: 'tts-test', input: 'x'.repeat(4097), voice: 'alloy' })
      .catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
    expect((failure as InstanceType<typeof OpenAI.BadRequestError>).param).toBe('input');
  });
});
