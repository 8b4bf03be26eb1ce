//! The hand-written Simplified ↔ Traditional tables the bot used before
//! OpenCC's dictionaries, kept only as the baseline of
//! `examples/zh_hant_speed.rs`: a character table and a list of words.

use std::collections::HashMap;
use std::sync::OnceLock;

/// `text` (Simplified Chinese) in Traditional characters and Taiwan/Hong Kong
/// wording, as far as [`WORDS`] and the character tables know it; other
/// characters are kept.
pub fn to_traditional(text: &str) -> String {
    let table = characters();
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if let Some((from, to)) = WORDS.iter().find(|(from, _)| rest.starts_with(from)) {
            out.push_str(to);
            rest = &rest[from.len()..];
            continue;
        }
        out.push(table.get(&c).copied().unwrap_or(c));
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// `text` (Traditional Chinese) in Simplified characters and mainland
/// wording, as far as the tables know it: the reverse of [`to_traditional`],
/// so that code reading shoppers' words (basic mode) knows one script.
pub fn to_simplified(text: &str) -> String {
    static TABLE: OnceLock<HashMap<char, char>> = OnceLock::new();
    let table = TABLE.get_or_init(|| {
        let pairs = SIMPLIFIED.chars().zip(TRADITIONAL.chars()).chain(SHARED.iter().copied());
        pairs.filter(|(_, t)| !IN_BOTH.contains(*t)).map(|(s, t)| (t, s)).collect()
    });
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if let Some((from, to)) = WORDS.iter().find(|(_, to)| rest.starts_with(to)) {
            out.push_str(from);
            rest = &rest[to.len()..];
            continue;
        }
        out.push(table.get(&c).copied().unwrap_or(c));
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Simplified → Traditional, one character at a time.
fn characters() -> &'static HashMap<char, char> {
    static TABLE: OnceLock<HashMap<char, char>> = OnceLock::new();
    TABLE.get_or_init(|| SIMPLIFIED.chars().zip(TRADITIONAL.chars()).chain(SHARED.iter().copied()).collect())
}

/// Traditional forms in [`TRADITIONAL`] that Simplified Chinese writes too (`著名`).
const IN_BOTH: &str = "著";

/// Characters written only in Simplified Chinese, each above its Traditional form in [`TRADITIONAL`].
const SIMPLIFIED: &str = "与专业丛东丝丢两严丧个丰临为丽举么义乌乐乔习乡书买乱争亏云亚产亩亲亿仅从仑仓仪们\
    价众优会伞伟传伤伦伪体佣侠侣侦侧侨俭债倾偿储儿兑党兰关兴兹养兽内冈册写军农冯决况\
    冻净凉减凑凤凭凯击凿刘则刚创删别刹剂剑剧劝办务动励劲劳势勋匀区医华协单卖卢卫却厂\
    厅历厉压厌厕县参双发变叙叠叶号叹吓吕吗启吴员呜咏响哑唤啰喷嘱团园围国图圆圣场坏块\
    坚坛坝坞坟坠垒垫埚堕墙壮声壳处备复够头夹夺奋奖妆妇妈娱娄婴孙学宁宝实宠审宪宫宽宾\
    寝对寻导寿将尔尘尝尧尸层屉届属岁岂岗岛岭峡币帅师帐带帮广庄庆库应庙废开异弃张弯弹\
    归当录彦彻径忆忧怀态怜总恋恶恳悦悬惊惧惨惩惯愤愿懒戏战户执扩扫扬扰抚抛抢护报担拟\
    拢拣拥拦拨择挂挡挤挥捡损换捣据掷掳揽搀摄摆摇摊撑撵敌数斋断无旧时旷昙显晒晓晕暂术\
    机杀杂权条来杨极构枪柜标栋栏树样桥档梦检椭楼槛欢欧歼残毁毕毡气汇汉汤沟没沪泪泼泽\
    洁洒浅浇浊测济浏浓涂涛润涨渐渔湾湿溃滚满滤滥滨灭灯灵灾灿炉炖炼点烂烟烛烦烧烫热焕\
    爱爷牵牺状犹狭独猎猪献玛环现琐电画畅疗疯皱盏盐监盖盘着睁矿码砖础硕确礼祸离种积称\
    税稳穷窃竞笔笼筛签简篮类粮紧纠红约级纪纯纱纳纵纷纸纹纺线练组细织终绍经绑结绕绘给\
    络绝统绢绣继绩绪续绳维绵综绿缓编缘缝缠缩网罗罚罢职联聪肃肠肤肿胁胆胜脑脚脸舰舱艰\
    艺节芦苏苹茧荐荣药获莱营萝蓝虑虾虽补装袄袜裤见观规视览觉触誉计订认讨让训议讯记讲\
    许论讼设访证评识诉诊词译试诗诚话询该详语误说请诸读课谁调谅谈谢谱贝负贡财责败货质\
    贩贫购贯贱贴贵贸费贺资赏赔赖赚赛赞赠赢赵赶趋跃践踪车轨转轮软轰轴轻载较辅辆辉输辑\
    辞辩边达迁过迈运还这进远违连迟适选递逻遗邮邻郑释鉴针钉钓钟钢钥钮钱钻铁铃铅铜铺链\
    销锁锅错键锦镜长门闪闭问闯闲间闷闹闻阅阔队阳阴阵阶际陆陈险随隐隶难雾静韩页顶项顺\
    须顾顿预领颇频颗题颜额风飞饥饭饮饰饱饺饼馆馈驶驾驻验骑骗骤鱼鲜鸟鸡鸭鹰麦黄齐齿龙\
    龟马吨剥卤咸鲁凛屿";
/// The Traditional forms of [`SIMPLIFIED`], character for character.
const TRADITIONAL: &str = "與專業叢東絲丟兩嚴喪個豐臨為麗舉麼義烏樂喬習鄉書買亂爭虧雲亞產畝親億僅從侖倉儀們\
    價眾優會傘偉傳傷倫偽體傭俠侶偵側僑儉債傾償儲兒兌黨蘭關興茲養獸內岡冊寫軍農馮決況\
    凍淨涼減湊鳳憑凱擊鑿劉則剛創刪別剎劑劍劇勸辦務動勵勁勞勢勳勻區醫華協單賣盧衛卻廠\
    廳歷厲壓厭廁縣參雙發變敘疊葉號嘆嚇呂嗎啟吳員嗚詠響啞喚囉噴囑團園圍國圖圓聖場壞塊\
    堅壇壩塢墳墜壘墊堝墮牆壯聲殼處備復夠頭夾奪奮獎妝婦媽娛婁嬰孫學寧寶實寵審憲宮寬賓\
    寢對尋導壽將爾塵嘗堯屍層屜屆屬歲豈崗島嶺峽幣帥師帳帶幫廣莊慶庫應廟廢開異棄張彎彈\
    歸當錄彥徹徑憶憂懷態憐總戀惡懇悅懸驚懼慘懲慣憤願懶戲戰戶執擴掃揚擾撫拋搶護報擔擬\
    攏揀擁攔撥擇掛擋擠揮撿損換搗據擲擄攬攙攝擺搖攤撐攆敵數齋斷無舊時曠曇顯曬曉暈暫術\
    機殺雜權條來楊極構槍櫃標棟欄樹樣橋檔夢檢橢樓檻歡歐殲殘毀畢氈氣匯漢湯溝沒滬淚潑澤\
    潔灑淺澆濁測濟瀏濃塗濤潤漲漸漁灣濕潰滾滿濾濫濱滅燈靈災燦爐燉煉點爛煙燭煩燒燙熱煥\
    愛爺牽犧狀猶狹獨獵豬獻瑪環現瑣電畫暢療瘋皺盞鹽監蓋盤著睜礦碼磚礎碩確禮禍離種積稱\
    稅穩窮竊競筆籠篩簽簡籃類糧緊糾紅約級紀純紗納縱紛紙紋紡線練組細織終紹經綁結繞繪給\
    絡絕統絹繡繼績緒續繩維綿綜綠緩編緣縫纏縮網羅罰罷職聯聰肅腸膚腫脅膽勝腦腳臉艦艙艱\
    藝節蘆蘇蘋繭薦榮藥獲萊營蘿藍慮蝦雖補裝襖襪褲見觀規視覽覺觸譽計訂認討讓訓議訊記講\
    許論訟設訪證評識訴診詞譯試詩誠話詢該詳語誤說請諸讀課誰調諒談謝譜貝負貢財責敗貨質\
    販貧購貫賤貼貴貿費賀資賞賠賴賺賽贊贈贏趙趕趨躍踐蹤車軌轉輪軟轟軸輕載較輔輛輝輸輯\
    辭辯邊達遷過邁運還這進遠違連遲適選遞邏遺郵鄰鄭釋鑑針釘釣鐘鋼鑰鈕錢鑽鐵鈴鉛銅鋪鏈\
    銷鎖鍋錯鍵錦鏡長門閃閉問闖閒間悶鬧聞閱闊隊陽陰陣階際陸陳險隨隱隸難霧靜韓頁頂項順\
    須顧頓預領頗頻顆題顏額風飛飢飯飲飾飽餃餅館饋駛駕駐驗騎騙驟魚鮮鳥雞鴨鷹麥黃齊齒龍\
    龜馬噸剝滷鹹魯凜嶼";
/// Characters both scripts write, which mostly stand for the Traditional one given.
const SHARED: &[(char, char)] =
    &[('后', '後'), ('里', '裡'), ('余', '餘'), ('几', '幾'), ('准', '準'), ('范', '範'), ('冲', '衝')];
/// Words converted as a whole before characters: Taiwan and Hong Kong usage, and words
/// where a character has another Traditional form (or none) than on its own.
const WORDS: &[(&str, &str)] = &[
    ("订单号", "訂單編號"),
    ("消息", "訊息"),
    ("搜索", "搜尋"),
    ("创建", "建立"),
    ("响应", "回應"),
    ("门店", "門市"),
    ("发送", "傳送"),
    ("保存", "儲存"),
    ("命令", "指令"),
    ("“", "「"),
    ("”", "」"),
    ("公里", "公里"),
    ("里程", "里程"),
    ("皇后", "皇后"),
    ("头发", "頭髮"),
    ("理发", "理髮"),
    ("发型", "髮型"),
    ("回复", "回覆"),
    ("答复", "答覆"),
    ("复制", "複製"),
    ("重复", "重複"),
    ("复杂", "複雜"),
    ("干净", "乾淨"),
    ("饼干", "餅乾"),
    ("干洗", "乾洗"),
    ("日历", "日曆"),
    ("制作", "製作"),
    ("制造", "製造"),
    ("战斗", "戰鬥"),
    ("一只", "一隻"),
    ("面条", "麵條"),
    ("面包", "麵包"),
    ("拉面", "拉麵"),
    ("信息", "資訊"),
    ("关键词", "關鍵字"),
    ("私聊", "私訊"),
    ("群里", "群組裡"),
    ("待支付", "待付款"),
    ("已支付", "已付款"),
    ("支付", "付款"),
    ("视频", "影片"),
    ("默认", "預設"),
    ("菜单", "選單"),
    ("网络", "網路"),
    ("质量", "品質"),
    ("软件", "軟體"),
    ("打印", "列印"),
    ("屏幕", "螢幕"),
    ("出租车", "計程車"),
    ("账号", "帳號"),
    ("账户", "帳戶"),
];
