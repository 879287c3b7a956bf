/**
 * The `model_config` keys that choose where a model's requests (and its credential) go beyond its
 * provider and endpoint; changing one moves the secret like changing the endpoint does.
 */

/** The Inference Providers route of a Hugging Face hub model (default: the server-side auto-router). */
export const HUGGINGFACE_ROUTE_KEY = 'inference_provider';

/** The custom provider handler (optional when only one is registered). */
export const CUSTOM_HANDLER_KEY = 'custom_provider';
