/** The part of api-spec-converter (a CommonJS package without types) that swagger2.ts uses. */
declare module "api-spec-converter" {
  interface Converted {
    stringify(): string;
  }
  const converter: {
    convert(options: { from: "openapi_3"; to: "swagger_2"; source: Record<string, unknown> }): Promise<Converted>;
  };
  export default converter;
}
