// Body decoding for both services: JSON with a decoded-size limit, Content-Encoding gzip/deflate/br, lone
// surrogates and repeated member names found in the text. The implementation lives in src/http/json-body.ts
// (the HTTP server's layer, which also answers request heads Node cannot parse); apps take it from here.
export {
  corruptBodyMessage,
  duplicateMembersOf,
  jsonBody,
  loneSurrogateMessage,
  tooDeepMessage,
  unsupportedCodingMessage,
} from '../http/json-body.ts';
