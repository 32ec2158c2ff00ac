import iconv from 'iconv-lite';
import { mulberry32 } from '../../bench/tree.js';

/**
 * Files in legacy encodings made from known text with iconv-lite, for the detection table
 * (test/unit/text/encoding-detect.test.ts, bench/encodings.ts) and the edit and search tests.
 * Each language has plain sentences; a sample is those sentences in a seeded order up to a size,
 * as prose or as source code whose comments and strings are in the language (mostly ASCII bytes,
 * the harder case for a detector).
 */

export const SENTENCES: Record<string, readonly string[]> = {
    ja: [
        'この関数は設定ファイルを読み込み、各項目の値を検証します。',
        '日本語のコメントはシフトJISで保存されていることが多いです。',
        '古いプロジェクトでは文字コードの変換に注意が必要です。',
        'ファイルが見つからない場合は、空の設定を返します。',
        '次の処理では、データベースへの接続を再試行します。',
        '東京の天気は晴れのち曇り、明日は雨が降るでしょう。',
        'ユーザーが入力した文字列を正しく表示できるように修正しました。',
        '検索機能を改善し、全文検索の速度が大幅に向上しました。',
        'この値は後方互換性のために残してありますが、使用しないでください。',
        '請求書の合計金額は税込みで計算されます。',
        '従業員の勤務時間を集計して、月末に報告書を作成します。',
        'エラーが発生した場合は、ログに詳細を書き出してから終了します。',
        '新しい版では画面の表示が速くなり、操作も簡単になりました。',
        '会議の資料は前日までに共有フォルダへ置いてください。',
    ],
    zhHans: [
        '这个函数读取配置文件并检查每一项的值。',
        '旧的项目中经常使用国标编码保存中文注释。',
        '如果找不到文件，就返回一个空的配置对象。',
        '下面的代码负责与数据库建立连接，并在失败时重试。',
        '北京今天天气晴朗，明天可能会下雨。',
        '我们修改了用户输入的处理方式，现在可以正确显示中文。',
        '搜索功能得到了改进，全文检索的速度明显提高。',
        '这个参数只为了向后兼容而保留，请不要再使用它。',
        '发票的总金额按照含税价格计算。',
        '系统每天晚上自动备份所有重要的数据。',
        '发生错误时，程序会把详细信息写入日志然后退出。',
        '新版本的界面更加简洁，操作也更加方便。',
        '请在会议前一天把资料放到共享文件夹里。',
    ],
    zhHant: [
        '這個函式讀取設定檔並檢查每一項的值。',
        '舊的專案中經常使用大五碼儲存中文註解。',
        '如果找不到檔案，就傳回一個空的設定物件。',
        '下面的程式碼負責與資料庫建立連線，並在失敗時重試。',
        '臺北今天天氣晴朗，明天可能會下雨。',
        '我們修改了使用者輸入的處理方式，現在可以正確顯示中文。',
        '搜尋功能得到了改進，全文檢索的速度明顯提高。',
        '這個參數只為了向後相容而保留，請不要再使用它。',
        '發票的總金額按照含稅價格計算。',
        '系統每天晚上自動備份所有重要的資料。',
        '發生錯誤時，程式會把詳細資訊寫入日誌然後結束。',
        '新版本的介面更加簡潔，操作也更加方便。',
        '請在會議前一天把資料放到共用資料夾裡。',
    ],
    ko: [
        '이 함수는 설정 파일을 읽고 각 항목의 값을 검사합니다.',
        '오래된 프로젝트에서는 한글 주석을 완성형 코드로 저장하는 경우가 많습니다.',
        '파일을 찾을 수 없으면 빈 설정 객체를 반환합니다.',
        '아래 코드는 데이터베이스에 연결하고 실패하면 다시 시도합니다.',
        '서울은 오늘 맑고 내일은 비가 올 것 같습니다.',
        '사용자가 입력한 문자열을 올바르게 표시하도록 수정했습니다.',
        '검색 기능을 개선하여 전체 텍스트 검색 속도가 크게 향상되었습니다.',
        '이 값은 하위 호환성을 위해 남겨 두었지만 사용하지 마십시오.',
        '청구서의 합계 금액은 세금을 포함하여 계산됩니다.',
        '오류가 발생하면 로그에 자세한 내용을 기록한 후 종료합니다.',
        '새 버전에서는 화면 표시가 빨라지고 조작도 쉬워졌습니다.',
        '회의 자료는 전날까지 공유 폴더에 올려 주십시오.',
    ],
    ru: [
        'Эта функция читает файл настроек и проверяет значение каждого параметра.',
        'В старых проектах русские комментарии часто сохранены в кодировке Windows.',
        'Если файл не найден, возвращается пустой объект настроек.',
        'Следующий код подключается к базе данных и повторяет попытку при ошибке.',
        'Сегодня в Москве солнечно, а завтра ожидается дождь.',
        'Мы исправили обработку строк, введённых пользователем, теперь они отображаются правильно.',
        'Поиск стал значительно быстрее после переработки индекса.',
        'Этот параметр оставлен для обратной совместимости, не используйте его.',
        'Итоговая сумма счёта рассчитывается с учётом налога.',
        'При возникновении ошибки программа записывает подробности в журнал и завершает работу.',
        'В новой версии интерфейс стал проще, а работа с ним удобнее.',
        'Пожалуйста, положите материалы к совещанию в общую папку накануне.',
    ],
    cs: [
        'Tato funkce načte konfigurační soubor a ověří hodnotu každé položky.',
        'Ve starých projektech jsou české komentáře často uloženy v kódování Windows.',
        'Pokud soubor neexistuje, vrátí se prázdný objekt s nastavením.',
        'Následující kód se připojí k databázi a při chybě se pokusí znovu.',
        'V Praze je dnes slunečno, zítra má pršet a foukat silný vítr.',
        'Opravili jsme zpracování řetězců zadaných uživatelem, nyní se zobrazují správně.',
        'Vyhledávání je po přepracování indexu výrazně rychlejší.',
        'Tento parametr zůstává kvůli zpětné kompatibilitě, nepoužívejte jej.',
        'Celková částka faktury se počítá včetně daně z přidané hodnoty.',
        'Při chybě program zapíše podrobnosti do deníku a ukončí činnost.',
        'Nová verze má jednodušší rozhraní a práce s ní je pohodlnější.',
        'Žluťoučký kůň úpěl ďábelské ódy, řekl šťastný člověk.',
    ],
    pl: [
        'Ta funkcja wczytuje plik konfiguracyjny i sprawdza wartość każdego pola.',
        'W starych projektach polskie komentarze często są zapisane w kodowaniu Windows.',
        'Jeśli plik nie istnieje, zwracany jest pusty obiekt z ustawieniami.',
        'Poniższy kod łączy się z bazą danych i ponawia próbę w razie błędu.',
        'W Warszawie jest dziś słonecznie, a jutro będzie padać deszcz.',
        'Poprawiliśmy obsługę napisów wprowadzonych przez użytkownika, teraz wyświetlają się poprawnie.',
        'Wyszukiwanie jest po przebudowie indeksu znacznie szybsze.',
        'Ten parametr pozostawiono dla zgodności wstecznej, nie należy go używać.',
        'Łączna kwota faktury jest liczona razem z podatkiem.',
        'W razie błędu program zapisuje szczegóły w dzienniku i kończy działanie.',
        'Zażółć gęślą jaźń, pchnąć w tę łódź jeża lub ośm skrzyń fig.',
    ],
    fr: [
        'Cette fonction lit le fichier de configuration et vérifie la valeur de chaque élément.',
        'Dans les anciens projets, les commentaires français sont souvent enregistrés en Windows-1252.',
        'Si le fichier est introuvable, on renvoie un objet de paramètres vide.',
        'Le code suivant se connecte à la base de données et réessaie en cas d’échec.',
        'À Paris il fait beau aujourd’hui, demain il pleuvra sur la côte.',
        'Nous avons corrigé le traitement des chaînes saisies par l’utilisateur : elles s’affichent désormais correctement.',
        'La recherche est nettement plus rapide après la refonte de l’index.',
        'Ce paramètre est conservé pour la compatibilité ascendante ; ne l’utilisez plus.',
        'Le montant total de la facture est calculé toutes taxes comprises, soit 120 €.',
        'En cas d’erreur, le programme écrit les détails dans le journal puis s’arrête.',
        'La nouvelle version a une interface plus simple et plus agréable à utiliser.',
        'Voix ambiguë d’un cœur qui au zéphyr préfère les jattes de kiwis.',
    ],
    de: [
        'Diese Funktion liest die Konfigurationsdatei und prüft den Wert jedes Eintrags.',
        'In älteren Projekten sind deutsche Kommentare oft in Latin-1 gespeichert.',
        'Wenn die Datei nicht gefunden wird, wird ein leeres Einstellungsobjekt zurückgegeben.',
        'Der folgende Code verbindet sich mit der Datenbank und versucht es bei Fehlern erneut.',
        'In München scheint heute die Sonne, morgen soll es regnen.',
        'Wir haben die Verarbeitung der Benutzereingaben korrigiert, Umlaute werden jetzt richtig angezeigt.',
        'Die Suche ist nach dem Umbau des Index deutlich schneller geworden.',
        'Dieser Parameter bleibt aus Gründen der Abwärtskompatibilität erhalten; bitte nicht mehr verwenden.',
        'Der Gesamtbetrag der Rechnung wird einschließlich Mehrwertsteuer berechnet.',
        'Bei einem Fehler schreibt das Programm Einzelheiten ins Protokoll und beendet sich.',
        'Zwölf Boxkämpfer jagen Viktor quer über den großen Sylter Deich.',
    ],
    el: [
        'Αυτή η συνάρτηση διαβάζει το αρχείο ρυθμίσεων και ελέγχει την τιμή κάθε στοιχείου.',
        'Στα παλιά έργα τα ελληνικά σχόλια είναι συχνά αποθηκευμένα σε ISO-8859-7.',
        'Αν το αρχείο δεν βρεθεί, επιστρέφεται ένα κενό αντικείμενο ρυθμίσεων.',
        'Ο παρακάτω κώδικας συνδέεται με τη βάση δεδομένων και ξαναδοκιμάζει σε σφάλμα.',
        'Στην Αθήνα σήμερα έχει λιακάδα, αύριο θα βρέξει.',
        'Διορθώσαμε την επεξεργασία των κειμένων που εισάγει ο χρήστης.',
        'Η αναζήτηση έγινε πολύ πιο γρήγορη μετά την ανακατασκευή του ευρετηρίου.',
        'Αυτή η παράμετρος διατηρείται για συμβατότητα, μην τη χρησιμοποιείτε.',
        'Σε περίπτωση σφάλματος το πρόγραμμα γράφει λεπτομέρειες στο ημερολόγιο.',
        'Η νέα έκδοση έχει απλούστερη διεπαφή και είναι πιο εύχρηστη.',
    ],
};

/** The encodings of the table and the language each is tried with. */
export const ENCODING_CASES: readonly { encoding: string; lang: string }[] = [
    { encoding: 'shift_jis', lang: 'ja' },
    { encoding: 'euc-jp', lang: 'ja' },
    { encoding: 'gbk', lang: 'zhHans' },
    { encoding: 'gb18030', lang: 'zhHans' },
    { encoding: 'big5', lang: 'zhHant' },
    { encoding: 'euc-kr', lang: 'ko' },
    { encoding: 'windows-1250', lang: 'cs' },
    { encoding: 'windows-1250', lang: 'pl' },
    { encoding: 'iso-8859-2', lang: 'cs' },
    { encoding: 'iso-8859-2', lang: 'pl' },
    { encoding: 'windows-1251', lang: 'ru' },
    { encoding: 'iso-8859-5', lang: 'ru' },
    { encoding: 'koi8-r', lang: 'ru' },
    { encoding: 'windows-1252', lang: 'fr' },
    { encoding: 'windows-1252', lang: 'de' },
    { encoding: 'iso-8859-1', lang: 'de' },
    { encoding: 'iso-8859-15', lang: 'fr' },
    { encoding: 'iso-8859-7', lang: 'el' },
];

const CODE_LINES = [
    'int read_config(const char *path, struct config *out)',
    '{',
    '    FILE *f = fopen(path, "r");',
    '    if (f == NULL) return -1;',
    '    while (fgets(line, sizeof line, f) != NULL) {',
    '        parse_line(line, out);',
    '    }',
    '    fclose(f);',
    '    return 0;',
    '}',
    'static const int retries = 3;',
    'for (int i = 0; i < count; i++) total += items[i].price;',
];

/**
 * Text of about `bytes` bytes once encoded (never less) in `lang`, in a seeded order: prose
 * (sentences on lines) or C code with a comment in the language every few lines. The sentences
 * are kept to what the encoding holds (Latin-1 has no euro sign nor curly apostrophe).
 */
export function sampleText(encoding: string, lang: string, bytes: number, seed: number, kind: 'prose' | 'code'): string {
    const rnd = mulberry32(seed);
    const pool = fittedSentences(lang, encoding);
    const size = encodedSizes(encoding);
    let text = '';
    let n = 0;
    for (let i = 0; n < bytes; i++) {
        const s = pool[Math.floor(rnd() * pool.length)]!;
        const line = kind === 'prose' ? `${s}\n` : `${CODE_LINES[i % CODE_LINES.length]}\n${i % 3 === 0 ? `/* ${s} */\n` : ''}`;
        text += line;
        let bytesOfLine = size.get(line);
        if (bytesOfLine === undefined) size.set(line, (bytesOfLine = iconv.encode(line, encoding).length));
        n += bytesOfLine;
    }
    return text;
}

/**
 * The same sentences and sizes for every sample of a language and encoding, made once: the
 * tables have hundreds of samples, and fitting each sentence character by character and
 * encoding each line again was most of their making.
 */
const FITTED = new Map<string, string[]>();
const SIZES = new Map<string, Map<string, number>>();
function fittedSentences(lang: string, encoding: string): string[] {
    const key = `${lang} ${encoding}`;
    let pool = FITTED.get(key);
    if (pool === undefined) FITTED.set(key, (pool = SENTENCES[lang]!.map((s) => fitTo(s, encoding))));
    return pool;
}
function encodedSizes(encoding: string): Map<string, number> {
    let sizes = SIZES.get(encoding);
    if (sizes === undefined) SIZES.set(encoding, (sizes = new Map()));
    return sizes;
}

/** `s` with the characters `encoding` cannot hold replaced by close ones (the text stays known). */
function fitTo(s: string, encoding: string): string {
    let out = '';
    for (const c of s) out += iconv.decode(iconv.encode(c, encoding), encoding) === c ? c : c === '€' ? 'EUR' : c === '’' ? "'" : c === 'œ' ? 'oe' : '?';
    return out;
}

/** A sample's bytes and the text they hold. */
export interface Sample {
    encoding: string;
    lang: string;
    kind: 'prose' | 'code';
    text: string;
    bytes: Buffer;
}

/** The table: for each encoding case, prose and code files of each size in `sizes`, `perSize` seeds each. */
export function sampleTable(sizes: readonly number[], perSize: number): Sample[] {
    const out: Sample[] = [];
    for (const { encoding, lang } of ENCODING_CASES) {
        for (const kind of ['prose', 'code'] as const) {
            for (const size of sizes) {
                for (let seed = 1; seed <= perSize; seed++) {
                    const text = sampleText(encoding, lang, size, seed * 7919 + size, kind);
                    out.push({ encoding, lang, kind, text, bytes: iconv.encode(text, encoding) });
                }
            }
        }
    }
    return out;
}
