BdataJ!è¾òÙg
