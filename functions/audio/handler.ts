/** The audio group's Lambda entry: text to speech, streamed as binary (no base64 detour). */
export { speech as handler } from './speech.js';
