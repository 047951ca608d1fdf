import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { odataErrorMessage } from '../../../connectors/odata/errors.js';
import { OdataHttp, OdataService } from '../../../connectors/odata/index.js';
import { parseMetadata } from '../../../connectors/odata/metadata.js';

/**
 * What v3-era Service Layer installations (/b1s/v1/) answer differently from v4: CSDL v3 metadata (navigation by
 * relationship roles), `odata.nextLink` paging and `odata.error` errors. The documents here are written to the
 * OData v3 CSDL and JSON Verbose/Light conventions; no v3 service or parser was available to check them against.
 */
const CSDL_V3 = `<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx">
  <edmx:DataServices m:DataServiceVersion="3.0" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
    <Schema Namespace="SAPB1" xmlns="http://schemas.microsoft.com/ado/2009/11/edm">
      <EntityType Name="Document">
        <Key><PropertyRef Name="DocEntry"/></Key>
        <Property Name="DocEntry" Type="Edm.Int32" Nullable="false"/>
        <Property Name="U_ApiOrderId" Type="Edm.String"/>
        <Property Name="DocumentLines" Type="Collection(SAPB1.DocumentLine)"/>
      </EntityType>
      <ComplexType Name="DocumentLine"><Property Name="ItemCode" Type="Edm.String"/></ComplexType>
      <EntityContainer Name="ServiceLayer" m:IsDefaultEntityContainer="true">
        <EntitySet Name="Orders" EntityType="SAPB1.Document"/>
        <FunctionImport Name="Cancel" IsBindable="true"/>
      </EntityContainer>
    </Schema>
  </edmx:DataServices>
</edmx:Edmx>`;

describe('odata connector with v3-era services', () => {
  it('reads CSDL v3: entity sets, properties, line collections and function imports', () => {
    const model = parseMetadata(CSDL_V3);
    expect(model.entitySets.get('Orders')).toBe('Document');
    expect([...(model.types.get('Document')?.properties ?? [])]).toEqual([
      'DocEntry',
      'U_ApiOrderId',
      'DocumentLines',
    ]);
    expect(model.types.get('Document')?.children.get('DocumentLines')).toBe('DocumentLine');
    expect(model.actions.has('Cancel')).toBe(true);
    expect(() => parseMetadata('<html>login page</html>')).toThrow('not an OData CSDL document');
  });

  it('reads errors in the v3 and both v4 shapes', () => {
    expect(
      odataErrorMessage({ 'odata.error': { code: '-1', message: { lang: 'en-us', value: 'v3 says no' } } }),
    ).toBe('v3 says no');
    expect(
      odataErrorMessage({ error: { code: 301, message: { lang: 'en-us', value: 'SL v4 says no' } } }),
    ).toBe('SL v4 says no');
    expect(odataErrorMessage({ error: { code: '', message: 'standard v4 says no' } })).toBe(
      'standard v4 says no',
    );
    expect(odataErrorMessage('<html/>')).toBeUndefined();
  });

  it('follows odata.nextLink pages', async () => {
    const pages: Record<string, unknown> = {
      '/b1s/v1/Orders?$select=DocEntry': {
        'odata.metadata': 'x',
        value: [{ DocEntry: 1 }],
        'odata.nextLink': 'Orders?$select=DocEntry&$skip=1',
      },
      '/b1s/v1/Orders?$select=DocEntry&$skip=1': { value: [{ DocEntry: 2 }] },
    };
    const seen: string[] = [];
    const server = createServer((request, response) => {
      seen.push(request.url ?? '');
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(pages[request.url ?? ''] ?? { value: [] }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const http = new OdataHttp(
      `http://127.0.0.1:${port}/b1s/v1/`,
      { kind: 'basic', username: 'u', password: 'p' },
      5_000,
      'erp',
    );
    try {
      const rows = await new OdataService(http, 'erp').list('Orders', { select: ['DocEntry'] }, 'test');
      expect(rows).toEqual([{ DocEntry: 1 }, { DocEntry: 2 }]);
      expect(seen).toEqual(Object.keys(pages));
    } finally {
      await http.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
