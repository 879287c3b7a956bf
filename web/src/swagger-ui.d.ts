// The parts of swagger-ui's prebuilt bundle this page uses (the package ships no types).
declare module 'swagger-ui-dist/swagger-ui-es-bundle.js' {
  interface SwaggerRequest {
    headers: Record<string, string>;
  }
  interface SwaggerOptions {
    spec: object;
    domNode: HTMLElement;
    requestInterceptor?: (request: SwaggerRequest) => SwaggerRequest;
    validatorUrl?: null;
    deepLinking?: boolean;
    tryItOutEnabled?: boolean;
  }
  export default function SwaggerUIBundle(options: SwaggerOptions): unknown;
}
