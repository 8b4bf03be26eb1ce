"""A client not written with mallbot: the official Python MCP SDK against
`mallbot mcp --listen`. Used by tests/mcp_server.rs, which reads the JSON
report printed on standard output.

    python3 tests/mcp_client.py http://127.0.0.1:PORT/mcp TOKEN
"""

import asyncio
import json
import sys

from mcp import ClientSession, types
from mcp.client.streamable_http import streamablehttp_client


async def run(url, token, answer, work):
    """Opens a session whose person answers confirmations with `answer`
    ("accept", "decline", or None for a client without elicitation)."""
    asked = []

    async def confirm(context, params):
        asked.append(params.message)
        return types.ElicitResult(action=answer, content={} if answer == "accept" else None)

    callback = confirm if answer else None
    headers = {"Authorization": f"Bearer {token}"}
    async with streamablehttp_client(url, headers=headers) as (read, write, _):
        async with ClientSession(read, write, elicitation_callback=callback) as session:
            await session.initialize()
            result = await work(session)
    return result, asked


async def cart_lines(session):
    cart = await session.call_tool("view_cart", {})
    assert not cart.isError, cart
    return len(cart.structuredContent["items"])


async def main(url, token):
    report = {}

    async def first(session):
        listed = await session.list_tools()
        report["tools"] = [tool.name for tool in listed.tools]
        add = next(tool for tool in listed.tools if tool.name == "add_to_cart")
        report["add_to_cart_schema"] = add.inputSchema
        found = await session.call_tool("search_products", {"keyword": "chilean cherries"})
        products = found.structuredContent["products"]
        report["found"] = len(products)
        report["search_text"] = " ".join(c.text for c in found.content if c.type == "text")
        # Each call below is checked by the SDK against the tool's outputSchema
        # (ClientSession raises on structured content that does not match).
        report["output_schemas"] = {tool.name: tool.outputSchema for tool in listed.tools}
        detail = await session.call_tool("get_product_detail", {"product_id": products[0]["product_id"]})
        stores = await session.call_tool("search_stores", {"keyword": "Nike"})
        store_id = stores.structuredContent["stores"][0]["store_id"]
        info = await session.call_tool("get_store_info", {"store_id": store_id, "info_type": "promotions"})
        route = await session.call_tool("navigate_to_store", {"store_name": "Nike"})
        area = await session.call_tool("navigate_to_area", {"area_name": "Food Court", "show_stores": True})
        orders = await session.call_tool("list_orders", {})
        report["validated"] = {}
        for name, result in [
            ("get_product_detail", detail),
            ("search_stores", stores),
            ("get_store_info", info),
            ("navigate_to_store", route),
            ("navigate_to_area", area),
            ("list_orders", orders),
        ]:
            assert not result.isError, (name, result)
            report["validated"][name] = " ".join(c.text for c in result.content if c.type == "text")
        added = await session.call_tool(
            "add_to_cart", {"product_id": products[0]["product_id"], "quantity": 1}
        )
        assert not added.isError, added
        report["lines_after_accept"] = await cart_lines(session)

    _, asked_yes = await run(url, token, "accept", first)

    async def second(session):
        declined = await session.call_tool("clear_cart", {})
        report["declined_is_error"] = bool(declined.isError)
        report["declined_text"] = " ".join(c.text for c in declined.content if c.type == "text")
        report["lines_after_decline"] = await cart_lines(session)

    _, asked_no = await run(url, token, "decline", second)

    async def third(session):
        refused = await session.call_tool("clear_cart", {})
        report["mute_is_error"] = bool(refused.isError)
        report["mute_text"] = " ".join(c.text for c in refused.content if c.type == "text")
        report["lines_after_mute"] = await cart_lines(session)

    _, asked_mute = await run(url, token, None, third)
    report["asked"] = asked_yes + asked_no + asked_mute
    print(json.dumps(report, ensure_ascii=False))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))
